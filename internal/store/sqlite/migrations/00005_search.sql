-- +goose Up
-- Full-text search (see internal/store/search.go).
--
-- search_docs gives every listing a stable integer docid, the FTS rowid
-- (listings' own rowid may change on VACUUM), and holds the columns that
-- filters and sorts read for each match in a compact row. Docids follow
-- insertion order, which is also the tie order inside a relevance tier.
CREATE TABLE search_docs (
    docid          INTEGER PRIMARY KEY,
    listing_id     TEXT NOT NULL UNIQUE,
    seller_id      TEXT NOT NULL,
    price          BIGINT NOT NULL,
    created_at     TIMESTAMP NOT NULL,
    category_id    TEXT NOT NULL,
    item_condition TEXT NOT NULL
);

-- search_fts indexes title, brand and description, plus a "tags" column of
-- tokens that the user's words never reach: s<status>, "xinactive" on
-- every listing that is not active (searches subtract it), and
-- c<category id without dashes>0 (the trailing digit keeps the porter
-- stemmer off it) for filters on a few categories. Every listing is
-- indexed whatever its status, so a sold cursor item keeps its place and
-- price checks find sold listings.
CREATE VIRTUAL TABLE search_fts USING fts5(
    title, brand, description, tags,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- A change counter: a cached match count is reused while it is unchanged.
CREATE TABLE search_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO search_version (id, n) VALUES (1, 0);

INSERT INTO search_docs (listing_id, seller_id, price, created_at, category_id, item_condition)
SELECT id, seller_id, price, created_at, category_id, item_condition FROM listings ORDER BY created_at, id;
INSERT INTO search_fts (rowid, title, brand, description, tags)
SELECT d.docid, l.title, l.brand, l.description,
       's' || l.status || CASE WHEN l.status = 'active' THEN '' ELSE ' xinactive' END
           || ' c' || replace(l.category_id, '-', '') || '0'
FROM search_docs d JOIN listings l ON l.id = d.listing_id;

-- +goose StatementBegin
CREATE TRIGGER listings_search_insert AFTER INSERT ON listings BEGIN
    INSERT INTO search_docs (listing_id, seller_id, price, created_at, category_id, item_condition)
    VALUES (NEW.id, NEW.seller_id, NEW.price, NEW.created_at, NEW.category_id, NEW.item_condition);
    INSERT INTO search_fts (rowid, title, brand, description, tags)
    SELECT docid, NEW.title, NEW.brand, NEW.description,
           's' || NEW.status || CASE WHEN NEW.status = 'active' THEN '' ELSE ' xinactive' END
               || ' c' || replace(NEW.category_id, '-', '') || '0'
    FROM search_docs WHERE listing_id = NEW.id;
    UPDATE search_version SET n = n + 1;
END;
-- +goose StatementEnd

-- Only a change to what search reads re-indexes (not watcher counts,
-- photos...). The docid stays, so an edited listing keeps its tie order.
-- +goose StatementBegin
CREATE TRIGGER listings_search_update AFTER UPDATE OF status, title, brand, description, price, item_condition,
    category_id, created_at, seller_id ON listings
WHEN OLD.status IS NOT NEW.status OR OLD.title IS NOT NEW.title OR OLD.brand IS NOT NEW.brand
    OR OLD.description IS NOT NEW.description OR OLD.price IS NOT NEW.price
    OR OLD.item_condition IS NOT NEW.item_condition OR OLD.category_id IS NOT NEW.category_id
    OR OLD.created_at IS NOT NEW.created_at OR OLD.seller_id IS NOT NEW.seller_id
BEGIN
    DELETE FROM search_fts WHERE rowid = (SELECT docid FROM search_docs WHERE listing_id = OLD.id);
    UPDATE search_docs SET seller_id = NEW.seller_id, price = NEW.price, created_at = NEW.created_at,
        category_id = NEW.category_id, item_condition = NEW.item_condition
    WHERE listing_id = OLD.id;
    INSERT INTO search_fts (rowid, title, brand, description, tags)
    SELECT docid, NEW.title, NEW.brand, NEW.description,
           's' || NEW.status || CASE WHEN NEW.status = 'active' THEN '' ELSE ' xinactive' END
               || ' c' || replace(NEW.category_id, '-', '') || '0'
    FROM search_docs WHERE listing_id = NEW.id;
    UPDATE search_version SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER listings_search_delete AFTER DELETE ON listings BEGIN
    DELETE FROM search_fts WHERE rowid = (SELECT docid FROM search_docs WHERE listing_id = OLD.id);
    DELETE FROM search_docs WHERE listing_id = OLD.id;
    UPDATE search_version SET n = n + 1;
END;
-- +goose StatementEnd

-- Browse by category (newest first) and price-estimate comparables.
CREATE INDEX listings_active_category ON listings (category_id, created_at, id) WHERE status = 'active';
CREATE INDEX listings_sold_category ON listings (category_id, sold_at) WHERE status = 'sold';

-- +goose Down
DROP INDEX listings_sold_category;
DROP INDEX listings_active_category;
DROP TRIGGER listings_search_delete;
DROP TRIGGER listings_search_update;
DROP TRIGGER listings_search_insert;
DROP TABLE search_version;
DROP TABLE search_fts;
DROP TABLE search_docs;
