# Sourced by the bench scripts: builds everything and sets $cp to the operator's test classpath
# (the benchmark mains live in operator/src/test).
./mvnw -B -q -DskipTests install
./mvnw -B -q -pl operator dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cp="operator/target/test-classes:operator/target/classes:$(cat operator/target/bench.cp)"
