/*
 * one_write - runs a command with its stderr a SOCK_SEQPACKET socket, so
 * that each write(2) to it, by the command or any process it starts,
 * arrives here as one message; copies every message to this stderr and
 * checks that each one holding PATTERN is one whole line (its only '\n'
 * at its end): a line written in pieces can splice with another process's
 * output in a log they share.
 *
 * Usage: one_write [--status S] [--expect N] PATTERN -- COMMAND [ARGS...]
 * Exit status: 0 when the command exited with status S (default 0), every
 * message holding PATTERN was one whole line and (with --expect) at least
 * N were seen; 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_MAX (1 << 16)

int main(int argc, char **argv)
{
	static char msg[MSG_MAX + 1];
	long expect = 0, want = 0, lines = 0, pieces = 0;
	const char *pattern;
	int sv[2], status, i = 1;
	ssize_t n;
	pid_t pid;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2) && argv[i][2]; i += 2) {
		if (!strcmp(argv[i], "--expect"))
			expect = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--status"))
			want = strtol(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (argc - i < 3 || strcmp(argv[i + 1], "--")) {
		fprintf(stderr, "usage: one_write [--status S] [--expect N] PATTERN -- COMMAND [ARGS...]\n");
		return 2;
	}
	pattern = argv[i];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		perror("one_write: socketpair");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("one_write: fork");
		return 2;
	}
	if (!pid) {
		close(sv[0]);
		if (dup2(sv[1], 2) < 0)
			_exit(127);
		close(sv[1]);
		execvp(argv[i + 2], argv + i + 2);
		perror("one_write: exec");
		_exit(127);
	}
	close(sv[1]);
	/* Until every process holding the socket has exited. */
	while ((n = recv(sv[0], msg, MSG_MAX, 0)) > 0) {
		char *nl;

		msg[n] = '\0';
		fwrite(msg, 1, (size_t)n, stderr);
		if (!strstr(msg, pattern))
			continue;
		nl = strchr(msg, '\n');
		if (nl && nl == msg + n - 1) {
			lines++;
			continue;
		}
		pieces++;
		fprintf(stderr, "\none_write: a write of %zd bytes holding '%s' is not one whole line\n",
			n, pattern);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != want) {
		fprintf(stderr, "one_write: %s failed (status %#x)\n", argv[i + 2], status);
		return 1;
	}
	if (lines < expect)
		fprintf(stderr, "one_write: %ld whole lines holding '%s', expected %ld or more\n",
			lines, pattern, expect);
	return pieces || lines < expect;
}
