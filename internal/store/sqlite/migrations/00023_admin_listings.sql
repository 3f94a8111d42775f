-- +goose Up
-- The admin listing list (store/admin_listings.go): newest first over every
-- listing, and a seller's listings in one status; recent moderation
-- rejections.
CREATE INDEX listings_created ON listings (created_at, id);
CREATE INDEX listings_seller_status ON listings (seller_id, status, created_at, id);
CREATE INDEX moderation_rejections_created ON moderation_rejections (created_at, id);

-- +goose Down
DROP INDEX moderation_rejections_created;
DROP INDEX listings_seller_status;
DROP INDEX listings_created;
