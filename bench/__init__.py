"""Benchmarks of eagle-spark on a multi-host Spark testbed.

Entry point: ``scripts/bench {replay,tpch,sort,all,dds,cluster,lotes,eirene,server} [--quick]`` (``python -m bench``).
Pure modules (no Spark): :mod:`bench.stats`, :mod:`bench.trace`, :mod:`bench.check`.
The simulator scripts' Python (``scripts/sim-*``, ``scripts/bench-sim``): :mod:`bench.sim` and
the ``bench.sim_*`` modules.
"""
