/* inproc.c - see inproc.h. */
#define _GNU_SOURCE /* memfd_create */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inproc.h"

#if defined(__SANITIZE_ADDRESS__)
#define INPROC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INPROC_ASAN 1
#endif
#endif

/* The input being run, for the messages of a signal or a sanitizer; while
 * a run's stderr is caught, the file catching it and the real stderr. */
static const char *volatile current = "";
static volatile int caught = -1, real = STDERR_FILENO;

/* Only async-signal-safe calls: the process is going down. What the run
 * wrote (a sanitizer's report too) goes to the real stderr first. */
static void say_current(void)
{
	static const char head[] = "inproc: the input at fault: ";
	const char *w = current;
	char buf[4096];
	off_t off = 0;
	ssize_t n;

	while (caught >= 0 && (n = pread(caught, buf, sizeof(buf), off)) > 0) {
		if (write(real, buf, (size_t)n) < 0)
			break;
		off += n;
	}
	if (write(real, head, sizeof(head) - 1) < 0 ||
	    write(real, w, strlen(w)) < 0 || write(real, "\n", 1) < 0)
		return;
}

static void on_fatal(int sig)
{
	if (sig == SIGALRM) {
		static const char msg[] = "inproc: out of time\n";

		if (write(real, msg, sizeof(msg) - 1) < 0)
			_exit(3);
	}
	say_current();
	signal(sig, SIG_DFL);
	raise(sig == SIGALRM ? SIGKILL : sig);
}

/* Sanitizers report and exit through their own path: this names the input. */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

int inproc_init(unsigned mb)
{
	static const int sigs[] = { SIGALRM, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_fatal);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(say_current);
	if (!freopen("/dev/null", "w", stdout))
		return -1;
#ifndef INPROC_ASAN
	struct rlimit rl = { (rlim_t)mb << 20, (rlim_t)mb << 20 };

	if (setrlimit(RLIMIT_AS, &rl))
		return -1;
#else
	(void)mb;
#endif
	return 0;
}

void inproc_run(const struct mt_cmd *cmd, int argc, const char **argv,
		unsigned s, const char *what, struct inproc_result *out)
{
	char *reset[] = { "reset", NULL };
	int saved, fd = memfd_create("inproc-stderr", MFD_CLOEXEC);
	ssize_t n = 0;

	current = what;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	if (fd >= 0 && saved >= 0 && dup2(fd, STDERR_FILENO) >= 0) {
		real = saved;
		caught = fd;
	}
	/* The commands parse with optind = 1, which keeps glibc's position
	 * inside the last option cluster: one parse per process in msgtrace,
	 * but here the previous input's argv is gone. optind = 0 forgets it. */
	optind = 0;
	getopt(1, reset, "");
	alarm(s);
	out->rc = cmd->run(argc, (char **)argv);
	alarm(0);
	fflush(stderr);
	caught = -1;
	real = STDERR_FILENO;
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (fd >= 0) {
		n = pread(fd, out->err, sizeof(out->err) - 1, 0);
		close(fd);
	}
	out->err[n > 0 ? n : 0] = '\0';
	current = "";
}
