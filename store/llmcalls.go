package store

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/llmcall"
	"github.com/kgstudio/kgstudio/extract"
)

// GetCall returns the cached model call stored under key. A call marked
// bad (its answer did not parse) is not served.
func (s *Store) GetCall(ctx context.Context, key string) (extract.CallRecord, bool, error) {
	row, err := s.client.LLMCall.Query().Where(llmcall.Key(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return extract.CallRecord{}, false, nil
	}
	if err != nil {
		return extract.CallRecord{}, false, translate(err, "model call")
	}
	if row.Bad {
		return extract.CallRecord{}, false, nil
	}
	return extract.CallRecord{Key: row.Key, Provider: row.Provider, Model: row.Model, Purpose: row.Purpose,
		Request: row.Request, Response: row.Response, PromptTokens: row.PromptTokens, OutputTokens: row.OutputTokens,
		Latency: time.Duration(row.LatencyMs) * time.Millisecond}, true, nil
}

// PutCall stores a model call. Storing a key twice keeps the first answer,
// unless that one is marked bad: a fresh answer replaces a bad one. It
// writes under the store's write lock, like every write.
func (s *Store) PutCall(ctx context.Context, rec extract.CallRecord) error {
	err := s.write(ctx, func(c *ent.Client) error {
		return c.LLMCall.Create().SetKey(rec.Key).SetProvider(rec.Provider).SetModel(rec.Model).
			SetPurpose(rec.Purpose).SetRequest(rec.Request).SetResponse(rec.Response).
			SetPromptTokens(rec.PromptTokens).SetOutputTokens(rec.OutputTokens).
			SetLatencyMs(rec.Latency.Milliseconds()).
			OnConflict(sql.ConflictColumns(llmcall.FieldKey), sql.UpdateWhere(sql.EQ(llmcall.FieldBad, true))).
			Update(func(u *ent.LLMCallUpsert) {
				u.UpdateResponse().UpdatePurpose().UpdateRequest().UpdatePromptTokens().UpdateOutputTokens().
					UpdateLatencyMs().SetBad(false)
			}).Exec(ctx)
	})
	if err != nil && err.Error() != "sql: no rows in result set" {
		return translate(err, "model call")
	}
	return nil
}

// MarkCallsBad marks the cached calls under keys as bad answers: they are
// kept, but the cache no longer serves them, so the next run asks again.
func (s *Store) MarkCallsBad(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return translate(s.write(ctx, func(c *ent.Client) error {
		return c.LLMCall.Update().Where(llmcall.KeyIn(keys...)).SetBad(true).Exec(ctx)
	}), "model calls")
}
