package store

import (
	"context"
	"database/sql"

	"marketplace/internal/market"
	"marketplace/internal/notify"
)

// The mail outbox (notify.Tx): every mail the service sends or keeps.

var _ notify.Tx = (*Tx)(nil)

// Notify is db as notify.Store.
func Notify(db *DB) Area[notify.Tx] {
	return area(db, func(tx *Tx) notify.Tx { return tx })
}

var _ notify.Store = Area[notify.Tx]{}

const mailColumns = `id, user_id, to_address, kind, event_id, subject, text_body, html_body, status, attempts,
	last_error, created_at, sent_at`

func scanMail(row scanner) (*notify.Mail, error) {
	var m notify.Mail
	var sent sql.NullTime
	if err := row.Scan(&m.ID, &m.UserID, &m.To, &m.Kind, &m.EventID, &m.Subject, &m.Text, &m.HTML, &m.Status,
		&m.Attempts, &m.LastError, &m.CreatedAt, &sent); err != nil {
		return nil, wrap(err)
	}
	m.CreatedAt = m.CreatedAt.UTC()
	if sent.Valid {
		t := sent.Time.UTC()
		m.SentAt = &t
	}
	return &m, nil
}

// QueueMail writes a new mail.
func (tx *Tx) QueueMail(ctx context.Context, m *notify.Mail) error {
	_, err := tx.exec(ctx, `INSERT INTO mail_outbox (`+mailColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.UserID, m.To, m.Kind, m.EventID, m.Subject, m.Text, m.HTML, m.Status, m.Attempts, m.LastError,
		m.CreatedAt, m.SentAt)
	return wrap(err)
}

// MailByID reads one mail.
func (tx *Tx) MailByID(ctx context.Context, id string) (*notify.Mail, error) {
	ms, err := queryAll(ctx, tx, scanMail, `SELECT `+mailColumns+` FROM mail_outbox WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, market.NotFound("mail")
	}
	return &ms[0], nil
}

// UpdateMail records a sending attempt's outcome.
func (tx *Tx) UpdateMail(ctx context.Context, m *notify.Mail) error {
	_, err := tx.exec(ctx, `UPDATE mail_outbox SET status = ?, attempts = ?, last_error = ?, sent_at = ? WHERE id = ?`,
		m.Status, m.Attempts, m.LastError, m.SentAt, m.ID)
	return wrap(err)
}

// Outbox lists the mails to userID, or to email (mails sent before the
// address had an account), newest first.
func (tx *Tx) Outbox(ctx context.Context, userID, email string, limit int) ([]notify.Mail, error) {
	return queryAll(ctx, tx, scanMail, `SELECT `+mailColumns+` FROM mail_outbox
		WHERE (user_id = ? AND user_id <> '') OR (to_address = ? AND to_address <> '')
		ORDER BY created_at DESC, id DESC LIMIT ?`, userID, email, limit)
}
