-- An extraction pass too large for one short transaction (a 1 MiB event gives thousands of memory
-- units, entities and triplets) is written in pieces, each in its own transaction
-- (workers/extract/pieces.ts). Each piece's run row carries a key naming the piece's content;
-- the unique index makes "this piece is written" a fact of the database, so a pass resumed after
-- a crash between pieces skips the ones committed instead of confirming its own memories again.
ALTER TABLE pipeline_runs ADD COLUMN piece_key text;
CREATE UNIQUE INDEX pipeline_runs_piece_key ON pipeline_runs (tenant_id, piece_key) WHERE piece_key IS NOT NULL;
