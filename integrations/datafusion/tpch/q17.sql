-- TPC-H query 17, standard text (TPC-H queries are Copyright 1993-2022 Transaction Processing
-- Performance Council, used under the TPC Fair Use Policy), with the substitution parameters
-- that DataFusion's benchmarks use.
select
	sum(l_extendedprice) / 7.0 as avg_yearly
from
	lineitem,
	part
where
	p_partkey = l_partkey
	and p_brand = 'Brand#42'
	and p_container = 'LG BAG'
	and l_quantity < (
		select
			0.2 * avg(l_quantity)
		from
			lineitem
		where
			l_partkey = p_partkey
	);
