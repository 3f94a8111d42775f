package store

import (
	"encoding/json"
	"strings"

	"marketplace/internal/market"
)

// Helpers that build statements and their arguments, for every area.

// placeholders is n comma-separated placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(p, cols string) string {
	out := ""
	for i, c := range splitColumns(cols) {
		if i > 0 {
			out += ", "
		}
		out += p + c
	}
	return out
}

func splitColumns(cols string) []string {
	var out []string
	cur := ""
	for _, r := range cols {
		switch r {
		case ',':
			out = append(out, cur)
			cur = ""
		case ' ', '\n', '\t':
		default:
			cur += string(r)
		}
	}
	return append(out, cur)
}

func jsonOrNull(v map[string]any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, market.Internal(err)
	}
	return string(b), nil
}

// inList is "column is one of vals" with the list as one bound value, so
// the SQL text does not change with the list's length.
func (tx *Tx) inList(column string, vals []string) (string, any) {
	if tx.db.dialect == Postgres {
		return column + ` = ANY(?)`, vals
	}
	b, _ := json.Marshal(vals) // []string always marshals
	return column + ` IN (SELECT value FROM json_each(?))`, string(b)
}

// nullString is NULL for "".
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// photoJSON is a list of photo ids as a JSON array ([] for none).
func photoJSON(ids []string) (string, error) {
	if ids == nil {
		ids = []string{}
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return "", market.Internal(err)
	}
	return string(b), nil
}

// likeEscape escapes LIKE's wildcards (with ESCAPE '\'), so s matches
// only itself inside a pattern.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
