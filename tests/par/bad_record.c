/*
 * bad_record - makes the record in the middle of a version 1 trace file
 * bad (its size 3: not a multiple of 8), so that the reader stops there;
 * prints its index among the file's records. Test helper of bad_equal.sh.
 *
 * Usage: bad_record FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt_format.h"

int main(int argc, char **argv)
{
	struct mt_file_hdr h;
	struct mt_rec_hdr r;
	struct stat st;
	uint64_t off, end, n = 0, mid, k = 0;
	uint8_t *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: bad_record FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDWR)) < 0 || fstat(fd, &st) ||
	    (size_t)st.st_size < sizeof(h) ||
	    (p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0)) == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	memcpy(&h, p, sizeof(h));
	end = h.data_off + h.committed;
	if (end > (uint64_t)st.st_size)
		end = (uint64_t)st.st_size;
	/* Counts the records, then walks to the middle one. */
	for (off = h.data_off; off + sizeof(r) <= end; off += r.size, n++) {
		memcpy(&r, p + off, sizeof(r));
		if (r.size < sizeof(r))
			break;
	}
	if (!n) {
		fprintf(stderr, "%s: no record\n", argv[1]);
		return 1;
	}
	mid = n / 2;
	for (off = h.data_off; k < mid; k++, off += r.size)
		memcpy(&r, p + off, sizeof(r));
	memcpy(&r, p + off, sizeof(r));
	r.size = 3;
	memcpy(p + off, &r, sizeof(r));
	printf("%llu\n", (unsigned long long)mid);
	return munmap(p, (size_t)st.st_size) || close(fd);
}
