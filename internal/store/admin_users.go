package store

import (
	"context"
	"strings"

	"marketplace/internal/accounts"
	"marketplace/internal/admin/users"
)

// The admin's user tools (users.UsersTx): the list of users, newest first.
var _ users.UsersTx = (*Tx)(nil)

// AdminUsers is db as users.UsersStore.
func AdminUsers(db *DB) Area[users.UsersTx] {
	return area(db, func(tx *Tx) users.UsersTx { return tx })
}

var _ users.UsersStore = Area[users.UsersTx]{}

// ListUsers returns users matching f, newest first, and the total.
//
// Indexes (migration 00022): no filter walks users_created; status,
// trustTier and role walk users_status_created, users_tier_created and
// users_role_created. The search is a LIKE '%term%' on email and username
// (stored in lower case) and on lower(display_name): on PostgreSQL three
// trigram GIN indexes answer it (a bitmap OR); SQLite has no substring
// index, so there the search filters the rows of the newest-first (or
// filter) index: a scan bounded by the users table, acceptable for an
// admin's occasional search (the note is in the report of issue 16).
func (tx *Tx) ListUsers(ctx context.Context, f users.UserFilter) ([]accounts.User, int, error) {
	var where []string
	var args []any
	add := func(col, v string) {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
		}
	}
	add("status", f.Status)
	add("trust_tier", f.TrustTier)
	add("role", f.Role)
	if f.Search != "" {
		p := "%" + likeEscape(f.Search) + "%"
		where = append(where, `(email LIKE ? ESCAPE '\' OR username LIKE ? ESCAPE '\' OR lower(display_name) LIKE ? ESCAPE '\')`)
		args = append(args, p, p, p)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := tx.queryRow(ctx, "SELECT COUNT(*) FROM users"+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap(err)
	}
	out, err := queryAll(ctx, tx, scanUser, `SELECT `+userColumns+` FROM users`+cond+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}
