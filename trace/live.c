/*
 * live.c - whether a trace's writer still runs, for files read while their
 * job is running: the same host, and /proc's process of that pid started
 * no later than its PROC record (a pid reused since started after it).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace_int.h"

/* Slack on the start time from /proc: clock ticks, and CLOCK_REALTIME
 * adjustments since the boot time is derived. */
#define START_SLACK_NS 1000000000LL

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* When process pid started, CLOCK_REALTIME ns; -1 when there is none, or
 * only its exit status is left (a zombie: killed, not yet reaped). */
static int64_t proc_start_ns(uint32_t pid)
{
	char path[32], buf[1024], *p;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: fields count from
	 * the last ')'; starttime is field 22, the 20th after it. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return -1;
	for (int i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return -1;
	return clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME) +
	       (int64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
}

int mt_trace_writer_alive(const char *host, const struct mt_rec_proc *rec)
{
	char me[256];
	int64_t started;

	if (!rec || gethostname(me, sizeof(me)) || strncmp(me, host, sizeof(me)))
		return 0;
	started = proc_start_ns(rec->pid);
	return started >= 0 && rec->start_realtime_ns <= INT64_MAX &&
	       started <= (int64_t)rec->start_realtime_ns + START_SLACK_NS;
}
