/*
 * mt_proc.c - process metadata and the trace clock.
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mt_proc.h"
#include "mt_rec.h"

int mt_rec_clock_tsc;
static uint64_t clock_hz;
static uint64_t start_realtime;
static int clock_ready;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mt_rec_clock_slow(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Both flags are needed: constant rate across P-states and still ticking
 * in deep C-states; otherwise ticks cannot be converted to time. */
static int tsc_invariant(void)
{
	char line[4096];
	int constant = 0, nonstop = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

/* Ticks per second over ~5 ms of CLOCK_MONOTONIC; the reader refines the
 * rate with the START/END pairs, this is the first estimate. */
static uint64_t calibrate(void)
{
	struct timespec nap = { 0, 5000000 };
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC), c0 = __builtin_ia32_rdtsc();
	uint64_t t1, c1;

	nanosleep(&nap, NULL);
	c1 = __builtin_ia32_rdtsc();
	t1 = clock_ns(CLOCK_MONOTONIC);
	if (t1 <= t0 || c1 <= c0)
		return 0;
	return (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
}

void mt_rec_proc_clock_init(void)
{
	if (clock_ready)
		return;
	start_realtime = clock_ns(CLOCK_REALTIME);
	clock_hz = tsc_invariant() ? calibrate() : 0;
	mt_rec_clock_tsc = clock_hz != 0;
	if (!mt_rec_clock_tsc)
		clock_hz = 1000000000u;
	clock_ready = 1;
}

void mt_rec_proc_clock_pair(struct mt_rec_clock *r, enum mt_clock_phase phase)
{
	uint64_t real = clock_ns(CLOCK_REALTIME);
	uint64_t ticks = mt_rec_now();

	r->monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	r->realtime_ns = real;
	mt_rec_hdr_set(&r->h, MT_REC_CLOCK, 0, sizeof(*r), phase, ticks);
}

static int env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		long n;

		if (!v || !*v)
			continue;
		n = strtol(v, &end, 10);
		if (!*end && n >= 0 && n <= INT32_MAX)
			return (int)n;
	}
	return -1;
}

void mt_rec_proc_job_id(char *buf, size_t len)
{
	static const char *const names[] = {
		"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "SLURM_JOB_ID",
		"PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", NULL
	};
	const char *v = NULL;
	size_t i;

	for (i = 0; names[i] && !(v && *v); i++)
		v = getenv(names[i]);
	snprintf(buf, len, "%s", v ? v : "");
	for (i = 0; buf[i]; i++) {
		char c = buf[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ||
		      c == '@'))
			buf[i] = '_';
	}
}

static void list_string(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	char *s = NULL;

	if (hwloc_bitmap_list_asprintf(&s, set) >= 0 && s)
		snprintf(buf, len, "%s", s);
	free(s);
}

/* Binding of the process and the NUMA nodes and packages it covers. */
static void fill_binding(struct mt_rec_proc *r)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	hwloc_bitmap_t pkgs = hwloc_bitmap_alloc();
	hwloc_obj_t pkg = NULL;

	if (!cpus || !nodes || !pkgs || hwloc_topology_init(&topo))
		goto out;
	if (hwloc_topology_load(topo) ||
	    hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS)) {
		hwloc_topology_destroy(topo);
		goto out;
	}
	list_string(cpus, r->cpuset, sizeof(r->cpuset));
	hwloc_cpuset_to_nodeset(topo, cpus, nodes);
	list_string(nodes, r->numa, sizeof(r->numa));
	while ((pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pkg)))
		if (hwloc_bitmap_intersects(pkg->cpuset, cpus))
			hwloc_bitmap_set(pkgs, pkg->os_index);
	list_string(pkgs, r->package, sizeof(r->package));
	hwloc_topology_destroy(topo);
out:
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(nodes);
	hwloc_bitmap_free(pkgs);
}

void mt_rec_proc_fill(struct mt_rec_proc *r, uint32_t fi_version)
{
	static const char *const rank[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
		"PMI_RANK", "SLURM_PROCID", NULL };
	static const char *const size[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
		"SLURM_NTASKS", NULL };
	static const char *const local[] = { "OMPI_COMM_WORLD_LOCAL_RANK",
		"MPI_LOCALRANKID", "SLURM_LOCALID", NULL };

	memset(r, 0, sizeof(*r));
	mt_rec_hdr_set(&r->h, MT_REC_PROC, 0, sizeof(*r), 0, mt_rec_now());
	r->pid = (uint32_t)getpid();
	r->world_rank = env_int(rank);
	r->world_size = env_int(size);
	r->local_rank = env_int(local);
	r->fi_version = fi_version;
	r->clock_source = mt_rec_clock_tsc ? MT_CLOCK_TSC : MT_CLOCK_MONOTONIC;
	r->clock_hz = clock_hz;
	r->start_realtime_ns = start_realtime;
	gethostname(r->hostname, sizeof(r->hostname) - 1);
	mt_rec_proc_job_id(r->job_id, sizeof(r->job_id));
	fill_binding(r);
}
