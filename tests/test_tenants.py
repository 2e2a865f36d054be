"""Tenants under the plugin: a job's `spark.scheduler.pool` makes it a tenant whose weight and
minimum share come from Spark's own FAIR allocation file, and a bad file stops the start,
naming it. (Spark Connect sessions as tenants: tests/test_sql_servers.py; what weights and
minimum shares do to the order: rust/eagle-core/tests/tenants.rs.)"""
from conftest import spark
from test_config import start_fails

POOLS = """<?xml version="1.0"?>
<allocations>
  <pool name="dashboards"><schedulingMode>FIFO</schedulingMode><weight>3</weight><minShare>1</minShare></pool>
</allocations>
"""


def test_a_pool_is_a_tenant_with_the_allocation_files_weight_and_minimum_share(tmp_path):
    pools = tmp_path / "pools.xml"
    pools.write_text(POOLS)
    summary = tmp_path / "summary.json"
    with spark("spark-eagle:local[2]", {"spark.scheduler.allocation.file": str(pools)}, summary) as (s, result):
        sc = s.sparkContext
        assert sc.parallelize(range(4), 2).count() == 4
        sc.setLocalProperty("spark.scheduler.pool", "dashboards")
        assert sc.parallelize(range(6), 2).count() == 6
        sc.setLocalProperty("spark.scheduler.pool", "adhoc")
        assert sc.parallelize(range(8), 2).count() == 8
    sets = result["summary"]["taskSets"]
    tenants = [(t["tenant"], t.get("tenantWeight"), t.get("tenantMinShare")) for t in sets]
    assert tenants == [(None, None, None), ("pool dashboards", 3, 1), ("pool adhoc", 1, 0)], tenants


def test_a_bad_allocation_file_is_named(tmp_path):
    bad = tmp_path / "pools.xml"
    bad.write_text("<allocations><pool name='x'><weight>2</weight>")  # not well-formed XML
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.allocation.file": str(bad)})
    assert "spark.scheduler.allocation.file" in msg and str(bad) in msg, msg
