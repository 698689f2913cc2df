# Sourced by the bench scripts: compiles the operator and what it depends on, and sets $cp to the
# operator's test classpath (the benchmark mains live in operator/src/test). The reactor's own
# modules come from their target/ directories: never `install`, other checkouts on this machine
# share ~/.m2.
./mvnw -B -q -DskipTests -pl operator -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cp="operator/target/test-classes:operator/target/classes:$(cat operator/target/bench.cp)"
