"""The 22 TPC-H queries, written for this project from the TPC-H specification (v3, clause 2.4),
with the specification's default substitution parameters (the "validation" values).

One text per query runs unchanged on Spark SQL and on DuckDB:
* date arithmetic on parameters is done here in Python, so every date is a plain
  ``date 'YYYY-MM-DD'`` literal (the spec's ``date ':1' + interval ...`` computed up front);
* ``substring(x, start, len)`` instead of ``substring(x from .. for ..)``;
* Q15's view ``revenue0`` is a common table expression.

``ORDER_KEYS[q]`` lists the result columns (0-based) that the query's ORDER BY names, so the
checker can test the order on them and compare the rest as a multiset (rows that tie on the
order keys may come back in any order).
"""
from __future__ import annotations

import datetime as _dt


def _d(s: str) -> _dt.date:
    return _dt.date.fromisoformat(s)


def _lit(d: _dt.date) -> str:
    return f"date '{d.isoformat()}'"


def _add_months(d: _dt.date, months: int) -> _dt.date:
    m = d.month - 1 + months
    return d.replace(year=d.year + m // 12, month=m % 12 + 1)


# Default substitution parameters (validation values of the spec).
PARAMS = {
    1: {"DELTA": 90},
    2: {"SIZE": 15, "TYPE": "BRASS", "REGION": "EUROPE"},
    3: {"SEGMENT": "BUILDING", "DATE": "1995-03-15"},
    4: {"DATE": "1993-07-01"},
    5: {"REGION": "ASIA", "DATE": "1994-01-01"},
    6: {"DATE": "1994-01-01", "DISCOUNT": "0.06", "QUANTITY": 24},
    7: {"NATION1": "FRANCE", "NATION2": "GERMANY"},
    8: {"NATION": "BRAZIL", "REGION": "AMERICA", "TYPE": "ECONOMY ANODIZED STEEL"},
    9: {"COLOR": "green"},
    10: {"DATE": "1993-10-01"},
    11: {"NATION": "GERMANY", "FRACTION": "0.0001"},
    12: {"SHIPMODE1": "MAIL", "SHIPMODE2": "SHIP", "DATE": "1994-01-01"},
    13: {"WORD1": "special", "WORD2": "requests"},
    14: {"DATE": "1995-09-01"},
    15: {"DATE": "1996-01-01"},
    16: {"BRAND": "Brand#45", "TYPE": "MEDIUM POLISHED", "SIZES": (49, 14, 23, 45, 19, 3, 36, 9)},
    17: {"BRAND": "Brand#23", "CONTAINER": "MED BOX"},
    18: {"QUANTITY": 300},
    19: {"QUANTITY1": 1, "QUANTITY2": 10, "QUANTITY3": 20,
         "BRAND1": "Brand#12", "BRAND2": "Brand#23", "BRAND3": "Brand#34"},
    20: {"COLOR": "forest", "DATE": "1994-01-01", "NATION": "CANADA"},
    21: {"NATION": "SAUDI ARABIA"},
    22: {"CODES": ("13", "31", "23", "29", "30", "18", "17")},
}

ORDER_KEYS = {
    1: [0, 1], 2: [0, 2, 1, 3], 3: [1, 2], 4: [0], 5: [1], 6: [], 7: [0, 1, 2], 8: [0],
    9: [0, 1], 10: [2], 11: [1], 12: [0], 13: [1, 0], 14: [], 15: [0], 16: [3, 0, 1, 2],
    17: [], 18: [4, 3], 19: [], 20: [0], 21: [1, 0], 22: [0],
}

# Columns whose ORDER BY direction is descending (to check the order, not only the keys).
DESC_KEYS = {
    2: [0], 3: [1], 5: [1], 9: [1], 10: [2], 11: [1], 13: [1, 0], 16: [3], 18: [4], 21: [1],
}


def query(q: int, scale_factor: float = 1.0) -> str:
    """The SQL text of TPC-H query q (1..22)."""
    if q not in _BUILDERS:
        raise ValueError(f"TPC-H has queries 1..22, not {q}")
    return _BUILDERS[q](PARAMS[q], scale_factor).strip()


def _q1(p, sf):
    ship = _d("1998-12-01") - _dt.timedelta(days=p["DELTA"])
    return f"""
select l_returnflag, l_linestatus,
       sum(l_quantity) as sum_qty,
       sum(l_extendedprice) as sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
       avg(l_quantity) as avg_qty,
       avg(l_extendedprice) as avg_price,
       avg(l_discount) as avg_disc,
       count(*) as count_order
from lineitem
where l_shipdate <= {_lit(ship)}
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus
"""


def _q2(p, sf):
    return f"""
select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey
  and s_suppkey = ps_suppkey
  and p_size = {p["SIZE"]}
  and p_type like '%{p["TYPE"]}'
  and s_nationkey = n_nationkey
  and n_regionkey = r_regionkey
  and r_name = '{p["REGION"]}'
  and ps_supplycost = (
      select min(ps_supplycost)
      from partsupp, supplier, nation, region
      where p_partkey = ps_partkey
        and s_suppkey = ps_suppkey
        and s_nationkey = n_nationkey
        and n_regionkey = r_regionkey
        and r_name = '{p["REGION"]}')
order by s_acctbal desc, n_name, s_name, p_partkey
limit 100
"""


def _q3(p, sf):
    d = _lit(_d(p["DATE"]))
    return f"""
select l_orderkey,
       sum(l_extendedprice * (1 - l_discount)) as revenue,
       o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = '{p["SEGMENT"]}'
  and c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and o_orderdate < {d}
  and l_shipdate > {d}
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
limit 10
"""


def _q4(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 3)
    return f"""
select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= {_lit(lo)}
  and o_orderdate < {_lit(hi)}
  and exists (
      select * from lineitem
      where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority
"""


def _q5(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 12)
    return f"""
select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and l_suppkey = s_suppkey
  and c_nationkey = s_nationkey
  and s_nationkey = n_nationkey
  and n_regionkey = r_regionkey
  and r_name = '{p["REGION"]}'
  and o_orderdate >= {_lit(lo)}
  and o_orderdate < {_lit(hi)}
group by n_name
order by revenue desc
"""


def _q6(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 12)
    disc = float(p["DISCOUNT"])
    return f"""
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= {_lit(lo)}
  and l_shipdate < {_lit(hi)}
  and l_discount between {disc - 0.01:.2f} and {disc + 0.01:.2f}
  and l_quantity < {p["QUANTITY"]}
"""


def _q7(p, sf):
    n1, n2 = p["NATION1"], p["NATION2"]
    return f"""
select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
    select n1.n_name as supp_nation,
           n2.n_name as cust_nation,
           extract(year from l_shipdate) as l_year,
           l_extendedprice * (1 - l_discount) as volume
    from supplier, lineitem, orders, customer, nation n1, nation n2
    where s_suppkey = l_suppkey
      and o_orderkey = l_orderkey
      and c_custkey = o_custkey
      and s_nationkey = n1.n_nationkey
      and c_nationkey = n2.n_nationkey
      and ((n1.n_name = '{n1}' and n2.n_name = '{n2}')
        or (n1.n_name = '{n2}' and n2.n_name = '{n1}'))
      and l_shipdate between date '1995-01-01' and date '1996-12-31'
) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year
"""


def _q8(p, sf):
    return f"""
select o_year,
       sum(case when nation = '{p["NATION"]}' then volume else 0 end) / sum(volume) as mkt_share
from (
    select extract(year from o_orderdate) as o_year,
           l_extendedprice * (1 - l_discount) as volume,
           n2.n_name as nation
    from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    where p_partkey = l_partkey
      and s_suppkey = l_suppkey
      and l_orderkey = o_orderkey
      and o_custkey = c_custkey
      and c_nationkey = n1.n_nationkey
      and n1.n_regionkey = r_regionkey
      and r_name = '{p["REGION"]}'
      and s_nationkey = n2.n_nationkey
      and o_orderdate between date '1995-01-01' and date '1996-12-31'
      and p_type = '{p["TYPE"]}'
) as all_nations
group by o_year
order by o_year
"""


def _q9(p, sf):
    return f"""
select nation, o_year, sum(amount) as sum_profit
from (
    select n_name as nation,
           extract(year from o_orderdate) as o_year,
           l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
    from part, supplier, lineitem, partsupp, orders, nation
    where s_suppkey = l_suppkey
      and ps_suppkey = l_suppkey
      and ps_partkey = l_partkey
      and p_partkey = l_partkey
      and o_orderkey = l_orderkey
      and s_nationkey = n_nationkey
      and p_name like '%{p["COLOR"]}%'
) as profit
group by nation, o_year
order by nation, o_year desc
"""


def _q10(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 3)
    return f"""
select c_custkey, c_name,
       sum(l_extendedprice * (1 - l_discount)) as revenue,
       c_acctbal, n_name, c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and o_orderdate >= {_lit(lo)}
  and o_orderdate < {_lit(hi)}
  and l_returnflag = 'R'
  and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
limit 20
"""


def _q11(p, sf):
    # The spec scales FRACTION by 1/SF.
    fraction = float(p["FRACTION"]) / sf
    return f"""
select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey
  and s_nationkey = n_nationkey
  and n_name = '{p["NATION"]}'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
    select sum(ps_supplycost * ps_availqty) * {fraction:.10f}
    from partsupp, supplier, nation
    where ps_suppkey = s_suppkey
      and s_nationkey = n_nationkey
      and n_name = '{p["NATION"]}')
order by value desc
"""


def _q12(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 12)
    return f"""
select l_shipmode,
       sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
                then 1 else 0 end) as high_line_count,
       sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
                then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey
  and l_shipmode in ('{p["SHIPMODE1"]}', '{p["SHIPMODE2"]}')
  and l_commitdate < l_receiptdate
  and l_shipdate < l_commitdate
  and l_receiptdate >= {_lit(lo)}
  and l_receiptdate < {_lit(hi)}
group by l_shipmode
order by l_shipmode
"""


def _q13(p, sf):
    return f"""
select c_count, count(*) as custdist
from (
    select c_custkey, count(o_orderkey) as c_count
    from customer left outer join orders
      on c_custkey = o_custkey
     and o_comment not like '%{p["WORD1"]}%{p["WORD2"]}%'
    group by c_custkey
) as c_orders
group by c_count
order by custdist desc, c_count desc
"""


def _q14(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 1)
    return f"""
select 100.00 * sum(case when p_type like 'PROMO%'
                         then l_extendedprice * (1 - l_discount) else 0 end)
       / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey
  and l_shipdate >= {_lit(lo)}
  and l_shipdate < {_lit(hi)}
"""


def _q15(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 3)
    return f"""
with revenue0 as (
    select l_suppkey as supplier_no,
           sum(l_extendedprice * (1 - l_discount)) as total_revenue
    from lineitem
    where l_shipdate >= {_lit(lo)}
      and l_shipdate < {_lit(hi)}
    group by l_suppkey
)
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, revenue0
where s_suppkey = supplier_no
  and total_revenue = (select max(total_revenue) from revenue0)
order by s_suppkey
"""


def _q16(p, sf):
    sizes = ", ".join(str(s) for s in p["SIZES"])
    return f"""
select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey
  and p_brand <> '{p["BRAND"]}'
  and p_type not like '{p["TYPE"]}%'
  and p_size in ({sizes})
  and ps_suppkey not in (
      select s_suppkey from supplier
      where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size
"""


def _q17(p, sf):
    return f"""
select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey
  and p_brand = '{p["BRAND"]}'
  and p_container = '{p["CONTAINER"]}'
  and l_quantity < (
      select 0.2 * avg(l_quantity)
      from lineitem
      where l_partkey = p_partkey)
"""


def _q18(p, sf):
    return f"""
select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) as sum_qty
from customer, orders, lineitem
where o_orderkey in (
      select l_orderkey from lineitem
      group by l_orderkey
      having sum(l_quantity) > {p["QUANTITY"]})
  and c_custkey = o_custkey
  and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100
"""


def _q19(p, sf):
    q1, q2, q3 = p["QUANTITY1"], p["QUANTITY2"], p["QUANTITY3"]
    return f"""
select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (p_partkey = l_partkey
       and p_brand = '{p["BRAND1"]}'
       and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
       and l_quantity >= {q1} and l_quantity <= {q1 + 10}
       and p_size between 1 and 5
       and l_shipmode in ('AIR', 'AIR REG')
       and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey
       and p_brand = '{p["BRAND2"]}'
       and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
       and l_quantity >= {q2} and l_quantity <= {q2 + 10}
       and p_size between 1 and 10
       and l_shipmode in ('AIR', 'AIR REG')
       and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey
       and p_brand = '{p["BRAND3"]}'
       and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
       and l_quantity >= {q3} and l_quantity <= {q3 + 10}
       and p_size between 1 and 15
       and l_shipmode in ('AIR', 'AIR REG')
       and l_shipinstruct = 'DELIVER IN PERSON')
"""


def _q20(p, sf):
    lo = _d(p["DATE"])
    hi = _add_months(lo, 12)
    return f"""
select s_name, s_address
from supplier, nation
where s_suppkey in (
      select ps_suppkey from partsupp
      where ps_partkey in (select p_partkey from part where p_name like '{p["COLOR"]}%')
        and ps_availqty > (
            select 0.5 * sum(l_quantity)
            from lineitem
            where l_partkey = ps_partkey
              and l_suppkey = ps_suppkey
              and l_shipdate >= {_lit(lo)}
              and l_shipdate < {_lit(hi)}))
  and s_nationkey = n_nationkey
  and n_name = '{p["NATION"]}'
order by s_name
"""


def _q21(p, sf):
    return f"""
select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
  and o_orderkey = l1.l_orderkey
  and o_orderstatus = 'F'
  and l1.l_receiptdate > l1.l_commitdate
  and exists (
      select * from lineitem l2
      where l2.l_orderkey = l1.l_orderkey
        and l2.l_suppkey <> l1.l_suppkey)
  and not exists (
      select * from lineitem l3
      where l3.l_orderkey = l1.l_orderkey
        and l3.l_suppkey <> l1.l_suppkey
        and l3.l_receiptdate > l3.l_commitdate)
  and s_nationkey = n_nationkey
  and n_name = '{p["NATION"]}'
group by s_name
order by numwait desc, s_name
limit 100
"""


def _q22(p, sf):
    codes = ", ".join(f"'{c}'" for c in p["CODES"])
    return f"""
select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
    select substring(c_phone, 1, 2) as cntrycode, c_acctbal
    from customer
    where substring(c_phone, 1, 2) in ({codes})
      and c_acctbal > (
          select avg(c_acctbal) from customer
          where c_acctbal > 0.00
            and substring(c_phone, 1, 2) in ({codes}))
      and not exists (select * from orders where o_custkey = c_custkey)
) as custsale
group by cntrycode
order by cntrycode
"""


_BUILDERS = {i: globals()[f"_q{i}"] for i in range(1, 23)}

TABLES = ("part", "supplier", "partsupp", "customer", "orders", "lineitem", "nation", "region")
