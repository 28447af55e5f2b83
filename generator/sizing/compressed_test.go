package sizing_test

import (
	"strings"
	"testing"
)

// TestCompressedKVByHand: DeepSeek-V4-Flash's 43 layers are 2 window-only,
// 21 of ratio 4 (with an indexer) and 20 of ratio 128; every one keeps a
// 128-token window of 512-value rows. At 131,072 tokens and 2-byte entries:
//   - window-only: 128 rows × 512 × 2 B,
//   - ratio 4: (128 + 131,072/4) rows × 512 × 2 B + 32,768 keys × 128 × 2 B,
//   - ratio 128: (128 + 1,024) rows × 512 × 2 B.
//
// The compressors' F32 window state: ratio 4 holds 2·4 positions of key and
// score at 2·512 (its indexer's at 2·128), ratio 128 holds 128 at 512.
func TestCompressedKVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json"), nil, nil)
	window := int64(128 * 512 * 2)
	ratio4 := int64((128+32768)*512*2 + 32768*128*2)
	ratio128 := int64((128 + 1024) * 512 * 2)
	kv := 2*window + 21*ratio4 + 20*ratio128
	if got := intOf(t, s, "kv.bytes_at_context.131072"); got != kv {
		t.Errorf("KV at 131,072 tokens = %d, want %d", got, kv)
	}
	// At 8,192 tokens: 2,048 rows and keys per ratio-4 layer, 64 rows per ratio-128 one.
	at8k := 2*window + 21*int64((128+2048)*512*2+2048*128*2) + 20*int64((128+64)*512*2)
	if got := intOf(t, s, "kv.bytes_at_context.8192"); got != at8k {
		t.Errorf("KV at 8,192 tokens = %d, want %d", got, at8k)
	}
	state := int64(21*(2*4*2*2*512+2*4*2*2*128)*4 + 20*128*2*512*4)
	if got := intOf(t, s, "state.bytes_per_sequence"); got != state {
		t.Errorf("state per sequence = %d, want %d", got, state)
	}
	if got := intOf(t, s, "memory.per_sequence_at.131072"); got != kv+state {
		t.Errorf("per sequence at 131,072 = %d, want %d", got, kv+state)
	}
	// Per token it is no whole number of bytes: unknown, naming why.
	if f := s.Get("kv.bytes_per_token"); f == nil || f.Value != nil || !strings.Contains(f.Reason, "compress_ratios") {
		t.Errorf("kv.bytes_per_token = %+v, want unknown naming compress_ratios", f)
	}
	// The layers have no kind: nothing sizes them as sliding or full
	// attention (the serving plan reads the compressed cache itself).
	if f := s.Get("arch.layer_kinds"); f == nil || !strings.Contains(f.Reason, "compress_ratios") {
		t.Errorf("arch.layer_kinds = %+v, want unknown naming compress_ratios", f)
	}
}
