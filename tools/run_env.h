/*
 * run_env.h - what `msgtrace run` sets in a launcher's environment so that
 * every rank it starts loads the msgtrace hook (private to tools/).
 *
 * Pure: the environment comes in through a lookup function and the result
 * is a list of variables to set, so tests can try any environment and
 * command line. It knows launchers by name and Open MPI's MCA parameters;
 * it neither starts nor reads a trace.
 */
#ifndef MT_RUN_ENV_H
#define MT_RUN_ENV_H

#include <stddef.h>

/* Who reads the environment the launcher hands its ranks. */
enum mt_cmd_launcher {
	MT_CMD_LAUNCHER_OMPI,	/* Open MPI's mpirun/mpiexec (orterun, prterun) */
	MT_CMD_LAUNCHER_MPICH,	/* MPICH's hydra (mpiexec.hydra, mpiexec.mpich) */
	MT_CMD_LAUNCHER_OTHER,	/* srun, a script, the program itself */
};

/* The launcher named by argv0 (as typed) whose file, links followed, is
 * called real (NULL: not found). */
enum mt_cmd_launcher mt_cmd_run_launcher(const char *argv0, const char *real);

/* The libfabric provider list Open MPI's OFI MTL gets when the user named
 * none: one that works between the ranks of one host with the libfabric
 * msgtrace was built for ("tcp;ofi_rxm" on 1.x; "tcp" on 2.x, whose tcp
 * has reliable datagram endpoints of its own). */
const char *mt_cmd_run_default_provider(void);

#define MT_CMD_RUN_VARS 8
#define MT_CMD_RUN_VALUE 4096

struct mt_cmd_run_cfg {
	const char *provider_dir;	/* holds libmsgtrace-fi.so */
	const char *trace_dir;		/* FI_OFI_HOOK_MSGTRACE_DIR */
	const char *fi_provider;	/* --provider, NULL: default */
	enum mt_cmd_launcher launcher;
	/* The launcher's command line (argv[0] the launcher): an Open MPI
	 * mpirun's --mca KEY VALUE and -x NAME[=VALUE] count as settings. */
	char *const *argv;
	int argc;
	const char *(*getenv)(const char *name);
};

/* The variables to set, in order, and the Open MPI settings left as the
 * user gave them (names of MCA parameters, for a message). */
struct mt_cmd_run_env {
	size_t n;
	struct {
		const char *name;
		char value[MT_CMD_RUN_VALUE];
	} var[MT_CMD_RUN_VARS];
	size_t n_kept;
	const char *kept[MT_CMD_RUN_VARS];
};

/*
 * Fills env from c: FI_PROVIDER_PATH with provider_dir first, FI_HOOK with
 * msgtrace added to the user's list, FI_OFI_HOOK_MSGTRACE_DIR unless the
 * user set it, and for every launcher but MPICH's the Open MPI parameters
 * that route point-to-point traffic through libfabric (OMPI_MCA_pml=cm,
 * OMPI_MCA_mtl=ofi, the MTL's provider list), each only when the user gave
 * it neither in the environment nor on an Open MPI mpirun's command line.
 * 0, or -1 with why said in err (a value too long, --provider against a
 * provider setting of the user's).
 */
int mt_cmd_run_env(const struct mt_cmd_run_cfg *c, struct mt_cmd_run_env *env,
		   char *err, size_t errlen);

#endif /* MT_RUN_ENV_H */
