/*
 * hook_warn.c - the hook's warnings: shown when libfabric's log shows this
 * provider's warnings (FI_LOG_LEVEL, FI_LOG_PROV), in the layout of
 * libfabric's own log lines, each built whole and written with one
 * write(2). libfabric writes its lines with fprintf on the unbuffered
 * stderr, which glibc 2.37 and later pass on in 128-byte pieces: the
 * warnings of two ranks sharing one log (mpirun gathers their stderr)
 * would splice mid-line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hook.h"

void mt_hook_warn_at(const char *func, int line, const char *fmt, ...)
{
	char buf[1024];
	int saved = errno;	/* warnings come from paths that keep errno */
	size_t len;
	ssize_t n;
	va_list ap;
	int head;

	if (!fi_log_enabled(&mt_hook_prov, FI_LOG_WARN, FI_LOG_CORE))
		return;
	head = snprintf(buf, sizeof(buf), "libfabric:%d:%ld::%s:core:%s():%d<warn> ",
			(int)getpid(), (long)time(NULL), mt_hook_prov.name, func, line);
	if (head < 0 || (size_t)head >= sizeof(buf) - 1)
		head = 0;
	va_start(ap, fmt);
	vsnprintf(buf + head, sizeof(buf) - 1 - (size_t)head, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	buf[len++] = '\n';	/* the room vsnprintf was not given */
	do
		n = write(STDERR_FILENO, buf, len);
	while (n < 0 && errno == EINTR);
	errno = saved;
}

void mt_hook_warn(const char *msg)
{
	HOOK_WARN("%s", msg);
}
