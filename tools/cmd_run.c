/*
 * cmd_run.c - `msgtrace run -- LAUNCHER ARGS...`: runs a job with the hook
 * loaded in every rank (run_env.h says what is set), passes the launcher's
 * exit status through, and says at the end where the trace is and what it
 * holds, on stderr: the job's standard output stays the job's.
 */
#define _GNU_SOURCE		/* mkdtemp, strchrnul */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "run_env.h"

#define CMD "msgtrace run"
#define HOOK_FILE "libmsgtrace-fi.so"

/* Where the provider is, from the directory of this executable: the build
 * tree (build/tools -> build/provider) and an installed prefix (bin ->
 * lib/libfabric, as provider/CMakeLists.txt installs it). */
static const char *const provider_dirs[] = { "../provider", "../lib/libfabric" };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace run [OPTIONS] -- LAUNCHER [ARGS...]\n"
		"Run an MPI job with the msgtrace hook in every rank, then say where\n"
		"the trace is and summarise it on standard error:\n"
		"  msgtrace run -- mpirun -np 4 ./app\n"
		"  msgtrace run -- mpiexec -n 4 ./app\n"
		"  msgtrace run -- srun ./app\n"
		"The launcher gets, in its environment (which it hands the ranks):\n"
		"  FI_PROVIDER_PATH  the directory of this msgtrace's provider, before\n"
		"                    the user's own\n"
		"  FI_HOOK           msgtrace, added to the user's list\n"
		"  FI_OFI_HOOK_MSGTRACE_DIR  the trace directory\n"
		"and, for every launcher but MPICH's mpiexec, Open MPI's settings\n"
		"that route point-to-point traffic through libfabric:\n"
		"  OMPI_MCA_pml=cm OMPI_MCA_mtl=ofi\n"
		"  OMPI_MCA_mtl_ofi_provider_include=%s (works on one host)\n"
		"each only when not given already, in the environment or on Open\n"
		"MPI's mpirun command line (--mca pml ob1 stays ob1).\n\n"
		"Options:\n"
		"  -o, --dir DIR      trace directory (default: FI_OFI_HOOK_MSGTRACE_DIR\n"
		"                     if set, else a new msgtrace-DATE-TIME-XXXXXX in the\n"
		"                     current directory); it must hold no trace yet\n"
		"  --provider LIST    libfabric providers for Open MPI's OFI MTL\n"
		"                     (mtl_ofi_provider_include), e.g. \"tcp;ofi_rxm\"\n"
		"  --no-summary       say only where the trace is\n"
		"  -h, --help         this text\n\n"
		"Exit status: the launcher's (killed by a signal: killed by the same\n"
		"signal); 2 usage error, 126/127 launcher not executable / not found.\n"
		"SIGINT, SIGTERM and SIGHUP sent to msgtrace run go to the launcher.\n",
		mt_cmd_run_default_provider());
}

struct run_opts {
	const char *dir;		/* --dir */
	const char *provider;		/* --provider */
	int no_summary;
};

/* 0 with o filled and optind at the launcher, -1 after --help, or the exit
 * status of a usage error. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	enum { OPT_PROVIDER = 256, OPT_NO_SUMMARY };
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'o' },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	optind = 1;
	/* '+': options end at the launcher, whose own options are its. */
	while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->dir = optarg;
			break;
		case OPT_PROVIDER:
			o->provider = optarg;
			break;
		case OPT_NO_SUMMARY:
			o->no_summary = 1;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, CMD ": unknown or incomplete option '%s' (see "
				CMD " --help)\n", argv[optind - 1]);
			return MT_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, CMD ": no launcher given: msgtrace run -- mpirun "
			"-np 4 ./app (see " CMD " --help)\n");
		return MT_EXIT_USAGE;
	}
	return 0;
}

/* The directory of this msgtrace's provider into dir, or -1 said. */
static int find_provider(char *dir, size_t len)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || !(exe[n] = 0, slash = strrchr(exe, '/'))) {
		fprintf(stderr, CMD ": cannot tell where this msgtrace is "
			"(/proc/self/exe): %s\n", n < 0 ? strerror(errno) : "?");
		return -1;
	}
	*slash = 0;
	for (size_t i = 0; i < sizeof(provider_dirs) / sizeof(*provider_dirs); i++) {
		snprintf(cand, sizeof(cand), "%s/%s/" HOOK_FILE, exe,
			 provider_dirs[i]);
		if (access(cand, R_OK))
			continue;
		cand[strlen(cand) - sizeof(HOOK_FILE)] = 0;
		if (realpath(cand, dir) && strlen(dir) < len)
			return 0;
	}
	fprintf(stderr, CMD ": no " HOOK_FILE " beside this msgtrace (looked in "
		"%s/%s and %s/%s): build it (cmake --build) or install it "
		"(cmake --install)\n", exe, provider_dirs[0], exe, provider_dirs[1]);
	return -1;
}

/* The trace directory, absolute, into dir (made 0700 when missing, as
 * the hook would): --dir, the user's FI_OFI_HOOK_MSGTRACE_DIR, or a new
 * one here. *made says whether this run made it (and may remove it when
 * nothing was traced). 0, or -1 said. */
static int trace_dir(const char *asked, char *dir, size_t len, int *made)
{
	char cwd[PATH_MAX], stamp[32], name[PATH_MAX];
	time_t now = time(NULL);
	struct stat st;

	*made = 0;
	if (!asked)
		asked = getenv("FI_OFI_HOOK_MSGTRACE_DIR");
	if (!asked) {
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(name, sizeof(name), "msgtrace-%s-XXXXXX", stamp);
		if (!mkdtemp(name)) {
			fprintf(stderr, CMD ": cannot create a trace directory here: "
				"%s\n", strerror(errno));
			return -1;
		}
		asked = name;
		*made = 1;
	} else if (!stat(asked, &st) && (!S_ISDIR(st.st_mode) ||
					 !mt_cmd_trace_absent(asked))) {
		fprintf(stderr, CMD ": %s %s: give another directory (-o DIR)\n",
			asked, S_ISDIR(st.st_mode) ? "holds a trace already" :
			"is no directory");
		return -1;
	} else if (!mkdir(asked, 0700)) {
		*made = 1;
	} else if (errno != EEXIST) {
		fprintf(stderr, CMD ": cannot create %s: %s\n", asked,
			strerror(errno));
		return -1;
	}
	/* Absolute: ranks started in another directory write there too. */
	if (asked[0] == '/')
		snprintf(cwd, sizeof(cwd), "%s", "");
	else if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, CMD ": cannot tell the current directory: %s\n",
			strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(dir, len, "%s%s%s", cwd, cwd[0] ? "/" : "",
			     asked) >= len) {
		fprintf(stderr, CMD ": trace directory name too long: %s\n", asked);
		return -1;
	}
	return 0;
}

/* The file the shell would run for name, links followed, into real; 0, or
 * -1 (not found: the launcher is told apart by name only). */
static int launcher_file(const char *name, char *real)
{
	const char *path = getenv("PATH"), *p, *end;
	char cand[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, real) ? 0 : -1;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)(end - p), p,
			 end > p ? "/" : "", name);
		if (!access(cand, X_OK) && realpath(cand, real))
			return 0;
	}
	return -1;
}

static const char *env_lookup(const char *name)
{
	return getenv(name);
}

/* Sets the launcher's environment (run_env.h) and says, in one line, what
 * Open MPI gets. 0, or -1 said. */
static int set_env(const struct run_opts *o, const char *provider_dir,
		   const char *dir, char **argv, int argc)
{
	static struct mt_cmd_run_env env;	/* 32 KiB: not on the stack */
	char real[PATH_MAX], err[256];
	struct mt_cmd_run_cfg c = {
		.provider_dir = provider_dir, .trace_dir = dir,
		.fi_provider = o->provider, .argv = argv, .argc = argc,
		.getenv = env_lookup,
	};
	const char *sep = "";

	c.launcher = mt_cmd_run_launcher(argv[0], launcher_file(argv[0], real) ?
					 NULL : real);
	if (mt_cmd_run_env(&c, &env, err, sizeof(err))) {
		fprintf(stderr, CMD ": %s\n", err);
		return -1;
	}
	fprintf(stderr, CMD ": tracing into %s", dir);
	for (size_t i = 0; i < env.n; i++) {
		if (setenv(env.var[i].name, env.var[i].value, 1)) {
			fprintf(stderr, "\n" CMD ": cannot set %s: %s\n",
				env.var[i].name, strerror(errno));
			return -1;
		}
		if (!strncmp(env.var[i].name, "OMPI_MCA_", 9)) {
			fprintf(stderr, "%s%s=%s", *sep ? " " : "; Open MPI: ",
				env.var[i].name + 9, env.var[i].value);
			sep = " ";
		}
	}
	for (size_t i = 0; i < env.n_kept; i++)
		fprintf(stderr, "%s%s", i ? ", " : "; yours kept: ", env.kept[i]);
	fputc('\n', stderr);
	return 0;
}

/* The launcher, while it runs, for the signal handler. */
static volatile sig_atomic_t launcher_pid;

/* A signal sent to msgtrace run goes to the launcher. One from the
 * terminal (si_code > 0: the kernel's) reached the launcher already,
 * which is in the same process group. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code <= 0 && launcher_pid > 0)
		kill((pid_t)launcher_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };

/* Runs argv; its wait status in *status. 0, or the exit status of a
 * launcher that could not be started (said). */
static int launch(char **argv, int *status)
{
	struct sigaction sa = { .sa_sigaction = forward,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	sigset_t block, old;
	int pipefd[2], e = 0;
	pid_t pid;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++) {
		sigaddset(&block, forwarded[i]);
		sigaction(forwarded[i], &sa, NULL);
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		fprintf(stderr, CMD ": pipe: %s\n", strerror(errno));
		return 127;
	}
	/* Blocked until the pid is known: none is lost in between. */
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
			signal(forwarded[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pipefd[0]);
		execvp(argv[0], argv);
		e = errno;	/* the parent says it: it owns stderr's order */
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	launcher_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (pid < 0) {
		fprintf(stderr, CMD ": fork: %s\n", strerror(errno));
		close(pipefd[0]);
		return 127;
	}
	if (read(pipefd[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;		/* closed by exec: it runs */
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	launcher_pid = 0;
	if (!e)
		return 0;
	fprintf(stderr, CMD ": cannot run %s: %s\n", argv[0], strerror(e));
	return e == ENOENT ? 127 : 126;
}

/* After the job: where the trace is and what it holds, on stderr. */
static void summarise(const struct run_opts *o, const char *dir, int made)
{
	const char *paths[] = { dir };
	struct mt_pipe_opts po = { .paths = paths, .npaths = 1,
				   .layout = MT_TAG_LAYOUT_NONE,
				   .clock = MT_CLOCK_MODE_AUTO };

	if (mt_cmd_trace_absent(dir)) {
		mt_cmd_untraced(CMD, paths, 1, 0);
		if (made && !rmdir(dir))
			fprintf(stderr, CMD ": removed the empty %s\n", dir);
		return;
	}
	fprintf(stderr, CMD ": trace in %s (msgtrace report %s for the whole "
		"report)\n", dir, dir);
	if (!o->no_summary)
		mt_cmd_pipe_run(CMD, &po, &mt_sink_brief, stderr);
}

/* The launcher's wait status as this process's exit: its exit status, or
 * death by the same signal (no core file of msgtrace's own). */
static int pass_through(int status)
{
	sigset_t one;
	int sig;

	if (!WIFSIGNALED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	fflush(stderr);
	raise(sig);
	return 128 + sig;	/* a signal whose default is to be ignored */
}

static int run(int argc, char **argv)
{
	char provider_dir[PATH_MAX], dir[PATH_MAX];
	struct run_opts o = { 0 };
	int rc = parse(argc, argv, &o), made, status = 0;

	if (rc)
		return rc < 0 ? MT_EXIT_OK : rc;
	argv += optind;
	argc -= optind;
	if (find_provider(provider_dir, sizeof(provider_dir)) ||
	    trace_dir(o.dir, dir, sizeof(dir), &made))
		return MT_EXIT_USAGE;
	if (set_env(&o, provider_dir, dir, argv, argc)) {
		if (made)
			rmdir(dir);
		return MT_EXIT_USAGE;
	}
	rc = launch(argv, &status);
	if (rc) {
		if (made)
			rmdir(dir);
		return rc;
	}
	summarise(&o, dir, made);
	return pass_through(status);
}

const struct mt_cmd mt_cmd_run = {
	.name = "run",
	.summary = "run an MPI job traced: msgtrace run -- mpirun -np 4 ./app",
	.run = run,
};
