# shellcheck shell=bash
# fabric.sh - what the installed libfabric offers the end-to-end tests
# (sourced by lib.sh and provider_lib.sh).
#
#   E2E_FI_API  the libfabric API version `fi_info --version` reports (2.1)
#   E2E_TCP     the provider list that gives Open MPI's OFI MTL a reliable
#               endpoint over TCP on one host: libfabric 1.x's tcp provider
#               has only connected endpoints, so rxm runs over it
#               ("tcp;ofi_rxm"); from 2.0 tcp alone gives a reliable
#               datagram endpoint ("tcp"), and Open MPI 5.0.7 over
#               tcp;ofi_rxm there crashes untraced after a truncated
#               receive (README "Known MPI defects", mpi_defects.sh).
#   E2E_MPROBE  the same for programs that take a message MPI_Mprobe found
#               with MPI_Mrecv (match_patterns): E2E_TCP on 1.x; sockets on
#               2.x, where Open MPI 5.0.7's MPI_Mrecv of such a message
#               fails over plain tcp (MPI_ERR_OTHER) and crashes over
#               tcp;ofi_rxm after the program's truncated receive.
#   E2E_RXM     "tcp;ofi_rxm" on every version: the tests of rxm itself.
#   E2E_FORK    the same for programs whose forked children open libfabric
#               (fork_fabric): E2E_TCP on 1.x; sockets on 2.x, where such a
#               child hangs or crashes inside libfabric over tcp and over
#               tcp;ofi_rxm, untraced too (mpi_defects.sh fork).
# Without fi_info (the fixture checks need no libfabric) both are empty, and
# a run asking for a provider fails saying so (e2e_mpirun_args).

E2E_FI_API=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric api: *//p' || true)
E2E_RXM= E2E_TCP= E2E_MPROBE= E2E_FORK=
if [ -n "$E2E_FI_API" ]; then
	E2E_RXM="tcp;ofi_rxm"
	if [ "${E2E_FI_API%%.*}" -ge 2 ]; then
		E2E_TCP=tcp E2E_MPROBE=sockets E2E_FORK=sockets
	else
		E2E_TCP=$E2E_RXM E2E_MPROBE=$E2E_RXM E2E_FORK=$E2E_RXM
	fi
fi
