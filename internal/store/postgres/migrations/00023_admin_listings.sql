-- +goose Up
-- The admin listing list (store/admin_listings.go): newest first over every
-- listing, a seller's listings (in one status or all) and recent moderation
-- rejections (all, or one seller's), each read in index order without a
-- sort.
CREATE INDEX listings_created ON listings (created_at, id);
CREATE INDEX listings_seller_created ON listings (seller_id, created_at, id);
CREATE INDEX listings_seller_status ON listings (seller_id, status, created_at, id);
CREATE INDEX moderation_rejections_created ON moderation_rejections (created_at, id);
CREATE INDEX moderation_rejections_user_created ON moderation_rejections (user_id, created_at, id);

-- +goose Down
DROP INDEX moderation_rejections_user_created;
DROP INDEX moderation_rejections_created;
DROP INDEX listings_seller_status;
DROP INDEX listings_seller_created;
DROP INDEX listings_created;
