/*
 * test_run_env.c - what `msgtrace run` sets for a launcher (run_env.h):
 * launchers told apart by name, the user's settings kept, lists extended.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "run_env.h"

/* The environment a test gives: NAME=VALUE strings, NULL-terminated. */
static const char *const *test_env;

static const char *lookup(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; test_env && test_env[i]; i++)
		if (!strncmp(test_env[i], name, n) && test_env[i][n] == '=')
			return test_env[i] + n + 1;
	return NULL;
}

static struct mt_cmd_run_env env;

/* mt_cmd_run_env for launcher with args (NULL-terminated) under envp. */
static int plan(enum mt_cmd_launcher launcher, const char *provider,
		const char *const *envp, char *const *args)
{
	struct mt_cmd_run_cfg c = {
		.provider_dir = "/opt/mt/lib/libfabric", .trace_dir = "/w/tr",
		.fi_provider = provider, .launcher = launcher, .argv = args,
		.getenv = lookup,
	};
	char err[256] = "";
	int r;

	while (args && args[c.argc])
		c.argc++;
	test_env = envp;
	r = mt_cmd_run_env(&c, &env, err, sizeof(err));
	cr_assert(r == 0 || err[0], "a failure says why");
	return r;
}

/* The value set for name, NULL when left alone. */
static const char *value(const char *name)
{
	for (size_t i = 0; i < env.n; i++)
		if (!strcmp(env.var[i].name, name))
			return env.var[i].value;
	return NULL;
}

static int kept(const char *what)
{
	for (size_t i = 0; i < env.n_kept; i++)
		if (!strcmp(env.kept[i], what))
			return 1;
	return 0;
}

Test(run_env, launcher_by_file_then_name)
{
	cr_assert_eq(mt_cmd_run_launcher("mpirun", "/usr/bin/orterun"),
		     MT_CMD_LAUNCHER_OMPI);
	cr_assert_eq(mt_cmd_run_launcher("mpirun", "/usr/bin/mpirun.openmpi"),
		     MT_CMD_LAUNCHER_OMPI);
	/* Debian's mpirun alternative pointing at MPICH. */
	cr_assert_eq(mt_cmd_run_launcher("mpirun", "/usr/bin/mpiexec.hydra"),
		     MT_CMD_LAUNCHER_MPICH);
	cr_assert_eq(mt_cmd_run_launcher("mpiexec", "/usr/bin/mpiexec.mpich"),
		     MT_CMD_LAUNCHER_MPICH);
	cr_assert_eq(mt_cmd_run_launcher("/opt/ompi5/bin/mpirun", NULL),
		     MT_CMD_LAUNCHER_OMPI);
	cr_assert_eq(mt_cmd_run_launcher("srun", "/usr/bin/srun"),
		     MT_CMD_LAUNCHER_OTHER);
	cr_assert_eq(mt_cmd_run_launcher("./app", "/home/u/app"),
		     MT_CMD_LAUNCHER_OTHER);
}

Test(run_env, open_mpi_from_nothing)
{
	char *args[] = { "mpirun", "-np", "4", "./app", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, NULL, args), 0);
	cr_assert_str_eq(value("FI_PROVIDER_PATH"), "/opt/mt/lib/libfabric");
	cr_assert_str_eq(value("FI_HOOK"), "msgtrace");
	cr_assert_str_eq(value("FI_OFI_HOOK_MSGTRACE_DIR"), "/w/tr");
	cr_assert_str_eq(value("OMPI_MCA_pml"), "cm");
	cr_assert_str_eq(value("OMPI_MCA_mtl"), "ofi");
	cr_assert_str_eq(value("OMPI_MCA_mtl_ofi_provider_include"),
			 mt_cmd_run_default_provider());
	cr_assert_eq(env.n, 6);
	cr_assert_eq(env.n_kept, 0);
}

Test(run_env, lists_extended_not_replaced)
{
	const char *envp[] = { "FI_PROVIDER_PATH=/usr/lib/fab", "FI_HOOK=perf",
			       NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_MPICH, NULL, envp, NULL), 0);
	cr_assert_str_eq(value("FI_PROVIDER_PATH"),
			 "/opt/mt/lib/libfabric:/usr/lib/fab");
	cr_assert_str_eq(value("FI_HOOK"), "perf;msgtrace");
}

Test(run_env, lists_holding_msgtrace_unchanged)
{
	const char *envp[] = {
		"FI_PROVIDER_PATH=/x:/opt/mt/lib/libfabric",
		"FI_HOOK=msgtrace;perf", NULL
	};

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OTHER, NULL, envp, NULL), 0);
	cr_assert_str_eq(value("FI_PROVIDER_PATH"), "/x:/opt/mt/lib/libfabric");
	cr_assert_str_eq(value("FI_HOOK"), "msgtrace;perf");
}

Test(run_env, hook_name_inside_another_is_not_it)
{
	const char *envp[] = { "FI_HOOK=msgtrace2", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OTHER, NULL, envp, NULL), 0);
	cr_assert_str_eq(value("FI_HOOK"), "msgtrace2;msgtrace");
}

Test(run_env, mpich_gets_no_open_mpi_settings)
{
	char *args[] = { "mpiexec", "-n", "4", "./app", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_MPICH, NULL, NULL, args), 0);
	cr_assert_eq(env.n, 3);
	cr_assert_null(value("OMPI_MCA_pml"));
	cr_assert_neq(plan(MT_CMD_LAUNCHER_MPICH, "tcp", NULL, args), 0,
		      "--provider is Open MPI's");
}

Test(run_env, srun_gets_open_mpi_settings)
{
	char *args[] = { "srun", "--mca", "pml", "ob1", "./app", NULL };

	/* srun has no --mca: these are the program's arguments. */
	cr_assert_eq(plan(MT_CMD_LAUNCHER_OTHER, NULL, NULL, args), 0);
	cr_assert_str_eq(value("OMPI_MCA_pml"), "cm");
}

Test(run_env, user_environment_kept)
{
	const char *envp[] = { "OMPI_MCA_pml=ob1",
			       "OMPI_MCA_mtl_ofi_provider_include=sockets", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, envp, NULL), 0);
	cr_assert_null(value("OMPI_MCA_pml"));
	cr_assert_str_eq(value("OMPI_MCA_mtl"), "ofi");
	cr_assert_null(value("OMPI_MCA_mtl_ofi_provider_include"));
	cr_assert(kept("pml"));
	cr_assert(kept("mtl_ofi_provider_include"));
}

Test(run_env, mpirun_command_line_kept)
{
	char *args[] = { "mpirun", "--mca", "pml", "ob1", "-mca", "mtl", "psm2",
			 "--mca", "opal_common_ofi_provider_exclude", "tcp",
			 "-np", "2", "./app", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, NULL, args), 0);
	cr_assert_null(value("OMPI_MCA_pml"));
	cr_assert_null(value("OMPI_MCA_mtl"));
	cr_assert_null(value("OMPI_MCA_mtl_ofi_provider_include"),
		       "an exclude list rules an include list out");
	cr_assert(kept("pml") && kept("mtl"));
	cr_assert(kept("opal_common_ofi_provider_exclude"));
}

Test(run_env, mpirun_x_forwarding_kept)
{
	char *args[] = { "mpirun", "-x", "OMPI_MCA_pml=ob1", "-x",
			 "OMPI_MCA_mtlx", "./app", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, NULL, args), 0);
	cr_assert_null(value("OMPI_MCA_pml"));
	cr_assert_str_eq(value("OMPI_MCA_mtl"), "ofi", "another name");
}

Test(run_env, mca_value_is_not_a_key)
{
	/* "pml" as the value of another parameter sets no pml. */
	char *args[] = { "mpirun", "--mca", "btl", "pml", "./app", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, NULL, args), 0);
	cr_assert_str_eq(value("OMPI_MCA_pml"), "cm");
}

Test(run_env, fi_provider_rules_the_mtl_list_out)
{
	const char *envp[] = { "FI_PROVIDER=sockets", NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, NULL, envp, NULL), 0);
	cr_assert_null(value("OMPI_MCA_mtl_ofi_provider_include"));
	cr_assert(kept("FI_PROVIDER"));
}

Test(run_env, provider_option)
{
	const char *envp[] = { "OMPI_MCA_opal_common_ofi_provider_include=tcp",
			       NULL };

	cr_assert_eq(plan(MT_CMD_LAUNCHER_OMPI, "sockets", NULL, NULL), 0);
	cr_assert_str_eq(value("OMPI_MCA_mtl_ofi_provider_include"), "sockets");
	cr_assert_neq(plan(MT_CMD_LAUNCHER_OMPI, "sockets", envp, NULL), 0,
		      "--provider against the user's own list");
}

Test(run_env, value_too_long)
{
	static char path[MT_CMD_RUN_VALUE + 32] = "FI_PROVIDER_PATH=";
	const char *envp[] = { path, NULL };

	memset(path + strlen(path), 'a', MT_CMD_RUN_VALUE);
	cr_assert_neq(plan(MT_CMD_LAUNCHER_OTHER, NULL, envp, NULL), 0);
}
