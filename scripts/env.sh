# Sourced by the scripts: the environment every Spark command here needs.
#   EAGLE_SPARK_LINE      the Spark line (3.5, 4.0, ... see spark-plugin/spark-lines.properties);
#                         default: SPARK_HOME's line if SPARK_HOME is set, else the default line
#   SPARK_HOME            the pyspark package of the line's venv: .venv for the default line
#                         (a full Spark 4.3 distribution), .venv-spark-<line> for the others
#   SPARK_SCALA_VERSION   local-cluster workers launch executors from SPARK_HOME (2.12 for 3.5)
#   EAGLE_VENV            that venv (its python runs the tests and the demo)
# shellcheck shell=bash
ROOT=${ROOT:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
EAGLE_LINES_FILE="$ROOT/spark-plugin/spark-lines.properties"

# eagle_line_field <line> <1|2|3>: pyspark version, Scala binary version, shim folder.
eagle_line_field() { sed -n "s/^$(printf '%s' "$1" | sed 's/\./\\./g')=//p" "$EAGLE_LINES_FILE" | awk -v f="$2" '{print $f}'; }
eagle_default_line() { sed -n 's/^default=//p' "$EAGLE_LINES_FILE"; }
eagle_all_lines() { grep -E '^[0-9]+\.[0-9]+=' "$EAGLE_LINES_FILE" | cut -d= -f1; }
eagle_venv() { if [ "$1" = "$(eagle_default_line)" ]; then echo "$ROOT/.venv"; else echo "$ROOT/.venv-spark-$1"; fi; }
# eagle_home_line <spark home>: "<major.minor> <scala>" from its spark-core jar, empty if none.
eagle_home_line() {
  local j; j=$(ls "$1"/jars/spark-core_*.jar 2>/dev/null | head -1)
  [ -n "$j" ] && basename "$j" | sed -E 's/^spark-core_([0-9.]+)-([0-9]+)\.([0-9]+)\..*/\2.\3 \1/'
}

if [ -z "${EAGLE_SPARK_LINE:-}" ] && [ -n "${SPARK_HOME:-}" ] && [ -n "$(eagle_home_line "$SPARK_HOME")" ]; then
  EAGLE_SPARK_LINE=$(eagle_home_line "$SPARK_HOME" | cut -d' ' -f1)
fi
EAGLE_SPARK_LINE=${EAGLE_SPARK_LINE:-$(eagle_default_line)}
if [ -z "$(eagle_line_field "$EAGLE_SPARK_LINE" 1)" ]; then
  echo "unknown Spark line '$EAGLE_SPARK_LINE': one of $(eagle_all_lines | tr '\n' ' ')" >&2
  return 2 2>/dev/null || exit 2
fi
EAGLE_VENV=$(eagle_venv "$EAGLE_SPARK_LINE")
if [ -z "${SPARK_HOME:-}" ] && [ -x "$EAGLE_VENV/bin/python" ]; then
  SPARK_HOME="$("$EAGLE_VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
fi
SPARK_SCALA_VERSION=$(eagle_line_field "$EAGLE_SPARK_LINE" 2)
export EAGLE_SPARK_LINE EAGLE_VENV SPARK_HOME SPARK_SCALA_VERSION
