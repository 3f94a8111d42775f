package store

import (
	"context"
	"strings"
	"unicode/utf8"

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
// users_role_created. The search is a case-insensitive substring of the
// e-mail, username or display name: on PostgreSQL a LIKE '%term%' that
// three trigram GIN indexes answer (a bitmap OR); on SQLite a phrase
// MATCH on users_search_fts, a trigram index (migration 00027), for a
// term of 3 characters or more. A shorter term has no trigram: SQLite
// then checks it with LIKE on the rows the other filters select (it
// matches a large share of users anyway, so the page is found early).
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
	if f.Search != "" && tx.db.dialect == SQLite && utf8.RuneCountInString(f.Search) >= 3 {
		where = append(where, `id IN (SELECT user_id FROM users_search_fts WHERE users_search_fts MATCH ?)`)
		args = append(args, ftsQuote(f.Search))
	} else if f.Search != "" {
		p := "%" + likeEscape(f.Search) + "%"
		where = append(where, `(email LIKE ? ESCAPE '\' OR username LIKE ? ESCAPE '\' OR lower(display_name) LIKE ? ESCAPE '\')`)
		args = append(args, p, p, p)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	total, err := tx.adminTotal(ctx, "users", cond, args, f.Offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := queryAll(ctx, tx, scanUser, `SELECT `+userColumns+` FROM users`+cond+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}
