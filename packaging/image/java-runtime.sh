#!/bin/sh
# Links the Java runtime an image runs on, holding only the modules its jar uses:
#   java-runtime.sh JAR OUTPUT
# with the jdeps, jlink and jmods of the JDK in JAVA_HOME (else the one of `jlink` on the PATH).
# Containerfile and driver.Containerfile run it in their "runtime" stage on a JDK image;
# build-local.sh runs it on the host's JDK (Debian's openjdk-17-jdk-headless). See docs/image.md.
#
# The modules are what jdeps finds the jar's classes referring to, plus RUNTIME_ONLY, less a module
# of UNUSED while every class that refers to it is one of those listed there: a new use of such a
# module anywhere else in the jar brings it back without anyone editing this file.
set -eu
jar="$1"
out="$2"
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v jlink)")")")}"

# Loaded at run time by name, which jdeps cannot see:
#   jdk.crypto.ec  the SunEC provider: ECDHE key exchange and EC keys in TLS (the operator's calls
#                  to drivers, its API server connection, the driver's TLS port and peer copies)
RUNTIME_ONLY="jdk.crypto.ec"

# module: the classes (with their nested classes; "a.b." for a package) whose references to it are
# never followed in these images.
#   java.desktop   JNA's AWT helpers (native window handles); Jackson's java.beans annotations
#                  (@ConstructorProperties, which no model here uses; Jackson does without them);
#                  commons-lang3's circuit breaker and SnakeYAML's bean introspector, neither called
#   java.compiler  annotation processors and the annotations of Error Prone and JavaPoet: build time
UNUSED="
java.desktop: com.sun.jna.Native com.fasterxml.jackson.databind.ext.Java7SupportImpl org.apache.commons.lang3.concurrent.AbstractCircuitBreaker org.yaml.snakeyaml.introspector.
java.compiler: com.google.errorprone.annotations. com.squareup.javapoet. io.javaoperatorsdk.operator.config.runtime.
"

deps="$(mktemp)"
trap 'rm -f "$deps"' EXIT
"$java_home/bin/jdeps" --multi-release "$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 |
  sed -n 's/^ *java.specification.version = //p')" --ignore-missing-deps -verbose:class "$jar" >"$deps"

# The modules the jar refers to: jdeps' summary lines, "<jar> -> <module>".
modules=""
for module in $(awk '/^[^ ]/ && NF == 3 && $2 == "->" {print $3}' "$deps" | sort -u); do
  allowed="$(printf '%s\n' "$UNUSED" | sed -n "s/^$module: //p")"
  if [ -n "$allowed" ]; then
    # Its users: the class lines ending in the module's name, "(name)" for an internal API.
    users="$(awk -v m="$module" '/^ / && $2 == "->" && ($NF == m || $NF == "(" m ")") {print $1}' "$deps" |
      sort -u)"
    others="$(printf '%s\n' "$users" | while read -r user; do
      known=""
      for entry in $allowed; do
        case "$entry" in
          *.) case "$user" in "$entry"*) known=1 ;; esac ;;          # a package and its subpackages
          *) case "$user" in "$entry" | "$entry"'$'*) known=1 ;; esac ;; # a class and its nested ones
        esac
      done
      [ -n "$known" ] || echo "$user"
    done)"
    if [ -z "$others" ]; then
      echo "java-runtime: leaving out $module (used only by $(printf "%s\n" "$users" | wc -l) classes listed in UNUSED)" >&2
      continue
    fi
    echo "java-runtime: keeping $module, used by $(printf '%s\n' "$others" | head -n 3 | tr '\n' ' ')..." >&2
  fi
  modules="$modules,$module"
done
case "$modules" in
  *,java.base*) ;;
  *) echo "java-runtime: jdeps found no use of java.base in $jar" >&2; exit 1 ;;
esac
modules="${modules#,},$RUNTIME_ONLY"
echo "java-runtime: $modules" >&2

# --generate-cds-archive: the runtime's own class data sharing archive of the JDK's classes, as a
# full JDK ships one (without it every start parses and verifies them again). Its second archive,
# for heaps over 32 GiB (no compressed object pointers), serves no heap of these images.
"$java_home/bin/jlink" --module-path "$java_home/jmods" --add-modules "$modules" \
  --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive \
  --output "$out"
rm -f "$out/lib/server/classes_nocoops.jsa"
