-- Builds and queries a table in an in-memory database: inserts, two indexes,
-- grouping, sorting, window functions, string building, updates and deletes.
-- tools/real_programs/real_programs.py runs it under each malloc and requires
-- the output to equal glibc's byte for byte.
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT, r REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
INSERT INTO t
  SELECT x, (x * 7919) % 1000,
         printf('name-%05d-%s', x % 9973,
                substr('abcdefghijklmnopqrstuvwxyz', 1 + x % 26, 1 + x % 7)),
         x * 0.5
  FROM c;
CREATE INDEX t_k ON t(k);
CREATE INDEX t_s ON t(s);
SELECT k, count(*), sum(r), min(s), max(s) FROM t GROUP BY k ORDER BY k LIMIT 12;
SELECT count(DISTINCT s), count(DISTINCT k) FROM t;
SELECT group_concat(id, ',') FROM (SELECT id FROM t WHERE k = 42 ORDER BY s, id LIMIT 40);
SELECT s, id FROM t ORDER BY s DESC, id LIMIT 5 OFFSET 1000;
SELECT k, s, r, rank() OVER (PARTITION BY k ORDER BY r DESC) AS rk
  FROM t WHERE k < 3 ORDER BY k, rk LIMIT 15;
UPDATE t SET s = s || '-updated-' || k WHERE k % 3 = 0;
DELETE FROM t WHERE k % 5 = 0;
SELECT count(*), sum(length(s)), total(r) FROM t;
SELECT length(group_concat(s, '')) FROM t WHERE k BETWEEN 100 AND 400;
SELECT k, avg(r), max(length(s)) FROM t GROUP BY k HAVING count(*) > 200 ORDER BY 2 DESC LIMIT 8;
