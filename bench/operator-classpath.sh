# Sourced by the bench scripts: compiles the operator and what it depends on, and sets $cp to the
# operator's test classpath (the benchmark mains live in operator/src/test). The reactor's own
# modules come from their target/ directories: never `install`, other checkouts on this machine
# share ~/.m2. BENCH_PREBUILT=1 skips the build (bench/aims.sh builds once for all its runs).
if [ -z "${BENCH_PREBUILT:-}" ]; then
  ./mvnw -B -q -DskipTests -pl operator -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
fi
cp="operator/target/test-classes:operator/target/classes:$(cat operator/target/bench.cp)"
