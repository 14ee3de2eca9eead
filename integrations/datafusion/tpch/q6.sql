-- TPC-H query 6, standard text (TPC-H queries are Copyright 1993-2022 Transaction Processing
-- Performance Council, used under the TPC Fair Use Policy), with the substitution parameters
-- that DataFusion's benchmarks use.
select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= date '1994-01-01'
	and l_shipdate < date '1994-01-01' + interval '1' year
	and l_discount between 0.06 - 0.01 and 0.06 + 0.01
	and l_quantity < 24;
