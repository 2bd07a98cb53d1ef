#!/bin/bash -eu
# build.sh: the fuzz targets for ClusterFuzzLite and OSS-Fuzz. It honours the
# variables their builders set: $CC and $CFLAGS (sanitizers and coverage
# instrumentation), $CXX and $CXXFLAGS for the link, $LIB_FUZZING_ENGINE (the
# engine's main), $OUT (where the targets go), $SRC and $WORK. For each
# harness/fuzz_<x>.c it writes $OUT/fuzz_<x>, its seed corpus
# fuzz_<x>_seed_corpus.zip (corpus/<x>/*.txt, encoded), fuzz_<x>.dict and
# fuzz_<x>.options. ci/oss-fuzz-local runs it the way their helper does.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -d "$root/src" ] || root=$SRC/mmfuzz
work=${WORK:-$(mktemp -d)}
mkdir -p "$work/obj" "$OUT"

# The host tool that encodes the seed traces: a plain build, no fuzzing flags.
env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake -S "$root" -B "$work/host" \
	-DCMAKE_BUILD_TYPE=Release -DMMFUZZ_WITH_NUMA=OFF >/dev/null
env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake --build "$work/host" --target mmfuzz -j"$(nproc)" >/dev/null
mmfuzz=$work/host/mmfuzz

# The model, with the builder's flags.
objs=()
for f in "$root"/src/*.c; do
	o=$work/obj/$(basename "${f%.c}").o
	$CC $CFLAGS -std=c11 -D_GNU_SOURCE -I"$root/src" -c "$f" -o "$o"
	objs+=("$o")
done
$CC $CFLAGS -std=c11 -D_GNU_SOURCE -I"$root/src" -c "$root/harness/fuzz_common.c" \
	-o "$work/obj/fuzz_common.o"

link=${CXX:-$CC}
linkflags=${CXXFLAGS:-$CFLAGS}
for f in "$root"/harness/fuzz_*.c; do
	name=$(basename "${f%.c}")
	[ "$name" != fuzz_common ] || continue
	x=${name#fuzz_}
	$CC $CFLAGS -std=c11 -D_GNU_SOURCE -I"$root/src" -I"$root/harness" -c "$f" \
		-o "$work/obj/$name.o"
	$link $linkflags "$work/obj/$name.o" "$work/obj/fuzz_common.o" "${objs[@]}" \
		$LIB_FUZZING_ENGINE -lpthread -lm -o "$OUT/$name"

	seeds=$work/seeds/$x
	rm -rf "$seeds"
	mkdir -p "$seeds"
	for t in "$root"/corpus/"$x"/*.txt; do
		[ -f "$t" ] || continue
		"$mmfuzz" encode "$t" -o "$seeds/$(basename "${t%.txt}").bin"
	done
	rm -f "$OUT/${name}_seed_corpus.zip"
	(cd "$seeds" && python3 -m zipfile -c "$OUT/${name}_seed_corpus.zip" .)
	cp "$root/harness/fuzz.dict" "$OUT/$name.dict"
	# About 50 ops: the length ci/fuzz runs with (docs/fuzz-speed.md).
	printf '[libfuzzer]\nmax_len = 256\ndict = %s.dict\n' "$name" >"$OUT/$name.options"
done
