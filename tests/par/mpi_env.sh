# mpi_env.sh (sourced by the par tests): the environment of the analysis's
# own MPI job. It traces nothing (no hook) and runs on one host, its ranks
# talking through shared memory (Open MPI's ob1 over its self and
# shared-memory transports):
#  - TCP left out: in a root without network interfaces of its own (Open
#    MPI 5.0.7 in the Debian 13 root of scripts/debian13) it says on
#    stderr, which the tests compare with msgtrace's, that it found no
#    pairing of interfaces;
#  - libfabric left out (the ofi transport, the cm layer over it): probing
#    its providers took 1.3 s of each MPI_Init's 1.8 on Open MPI 4.1.4,
#    with ob1 over shared memory 0.5.
# shellcheck shell=bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=^tcp,ofi OMPI_MCA_pml=ob1
unset FI_HOOK FI_PROVIDER_PATH
