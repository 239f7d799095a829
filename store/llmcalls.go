package store

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/llmcall"
	"github.com/kgstudio/kgstudio/extract"
)

// GetCall returns the cached model call stored under key.
func (s *Store) GetCall(ctx context.Context, key string) (extract.CallRecord, bool, error) {
	row, err := s.client.LLMCall.Query().Where(llmcall.Key(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return extract.CallRecord{}, false, nil
	}
	if err != nil {
		return extract.CallRecord{}, false, translate(err, "model call")
	}
	return extract.CallRecord{Key: row.Key, Provider: row.Provider, Model: row.Model, Purpose: row.Purpose,
		Request: row.Request, Response: row.Response, PromptTokens: row.PromptTokens, OutputTokens: row.OutputTokens,
		Latency: time.Duration(row.LatencyMs) * time.Millisecond}, true, nil
}

// PutCall stores a model call; storing the same key twice keeps the first.
func (s *Store) PutCall(ctx context.Context, rec extract.CallRecord) error {
	err := s.client.LLMCall.Create().SetKey(rec.Key).SetProvider(rec.Provider).SetModel(rec.Model).
		SetPurpose(rec.Purpose).SetRequest(rec.Request).SetResponse(rec.Response).
		SetPromptTokens(rec.PromptTokens).SetOutputTokens(rec.OutputTokens).
		SetLatencyMs(rec.Latency.Milliseconds()).OnConflictColumns(llmcall.FieldKey).DoNothing().Exec(ctx)
	if err != nil && err.Error() != "sql: no rows in result set" {
		return translate(err, "model call")
	}
	return nil
}
