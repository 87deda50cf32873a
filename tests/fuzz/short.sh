#!/bin/sh
# short.sh FUZZER CORPUS - ctest's fuzz_short, the short fuzz campaign (the
# long one: scripts/fuzz run), in the test's working directory: every input
# of the corpus (CORPUS, a .tar.xz), then mutations, 2,600 runs in all.
# The same runs every time, on any machine, so that CI cannot fail by chance:
# - seeded;
# - the corpus named in a list, in name order, and not shuffled: libFuzzer
#   runs it smallest first, ties in the order it read them, which from a
#   directory is the file system's (ext4 orders names by a hash seeded per
#   file system: a CI machine fuzzed other inputs than this one did);
# - without address randomization where the system allows it: what the
#   target compares steers the mutations, and some compares are pointers'.
# One allocation may take 256 MB; past that the allocator returns NULL, as
# malloc does past what the machine has (scripts/fuzz says why).
set -e
fuzzer=$1
corpus=$2
rm -rf short
mkdir short
tar -xJf "$corpus" -C short --strip-components=1
LC_ALL=C ls short | sed 's|^|short/|' | paste -sd , | tr -d '\n' > seeds
fixed=
if setarch -R true 2>/dev/null; then
	fixed="setarch -R"
fi
export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=256
exec $fixed "$fuzzer" -runs=2600 -seed=1 -shuffle=0 -seed_inputs=@seeds \
	-close_fd_mask=3 -rss_limit_mb=512 -timeout=10
