-- +goose Up
-- Faster text searches sorted by price or date (see sortedFTSPage in
-- internal/store/search.go): a broad query walks search_docs in sort order
-- and keeps the listings in its match set, instead of reading and sorting
-- every match. The indexes carry what the filters read (price, condition),
-- so that the walk reads no table row.
CREATE INDEX search_docs_price ON search_docs (price, listing_id, item_condition);
CREATE INDEX search_docs_created ON search_docs (created_at, listing_id, price, item_condition);

-- +goose Down
DROP INDEX search_docs_created;
DROP INDEX search_docs_price;
