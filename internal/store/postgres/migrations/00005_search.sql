-- +goose Up
-- Full-text search (see internal/store/search.go). Three vectors, one per
-- relevance tier, each with its own GIN index over active listings, so
-- that every tier is an exact index match (a weight-restricted query on a
-- single vector would recheck every row holding the word anywhere):
-- title; title and brand; title, brand and description. English stemming,
-- as the SQLite side's porter tokenizer. Each vector also carries tag
-- lexemes for the category (c<id without dashes>0) and condition
-- (k<condition without underscores>), so those filters are index matches
-- too. Sold listings are indexed for price checks. fastupdate is off: a
-- long pending list made every search scan it (3 to 10 times slower after
-- a bulk load) until the next vacuum; inserts pay a little instead.
ALTER TABLE listings
    ADD COLUMN title_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig, title) ||
        to_tsvector('english'::regconfig, 'c' || replace(category_id, '-', '') || '0 k' || replace(item_condition, '_', ''))
    ) STORED,
    ADD COLUMN head_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig, title || ' ' || brand) ||
        to_tsvector('english'::regconfig, 'c' || replace(category_id, '-', '') || '0 k' || replace(item_condition, '_', ''))
    ) STORED,
    ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig, title || ' ' || brand || ' ' || description) ||
        to_tsvector('english'::regconfig, 'c' || replace(category_id, '-', '') || '0 k' || replace(item_condition, '_', ''))
    ) STORED;
CREATE INDEX listings_title_search ON listings USING GIN (title_vector) WITH (fastupdate = off) WHERE status = 'active';
CREATE INDEX listings_head_search ON listings USING GIN (head_vector) WITH (fastupdate = off) WHERE status = 'active';
CREATE INDEX listings_search ON listings USING GIN (search_vector) WITH (fastupdate = off) WHERE status = 'active';
CREATE INDEX listings_sold_search ON listings USING GIN (search_vector) WITH (fastupdate = off) WHERE status = 'sold';

-- Browse by category (newest first) and price-estimate comparables.
CREATE INDEX listings_active_category ON listings (category_id, created_at, id) WHERE status = 'active';
CREATE INDEX listings_sold_category ON listings (category_id, sold_at) WHERE status = 'sold';

-- +goose Down
DROP INDEX listings_sold_category;
DROP INDEX listings_active_category;
DROP INDEX listings_sold_search;
DROP INDEX listings_search;
DROP INDEX listings_head_search;
DROP INDEX listings_title_search;
ALTER TABLE listings DROP COLUMN search_vector, DROP COLUMN head_vector, DROP COLUMN title_vector;
