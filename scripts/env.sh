# Sourced by the scripts: the environment every Spark command here needs.
#   SPARK_HOME            the pyspark package in .venv (a full Spark 4.0.1 distribution)
#   SPARK_SCALA_VERSION   local-cluster workers launch executors from SPARK_HOME
# shellcheck shell=bash
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
if [ -z "${SPARK_HOME:-}" ]; then
  SPARK_HOME="$("$ROOT/.venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
fi
export SPARK_HOME
export SPARK_SCALA_VERSION=2.13
