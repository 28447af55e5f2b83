package sizing_test

import (
	"testing"
)

// TestConvAndMamba1StateByHand: LFM2's short convolution keeps
// conv_L_cache − 1 inputs of hidden_size channels; a Mamba-1 (Jamba) layer
// keeps expand × hidden channels × d_state and (d_conv − 1) of them.
func TestConvAndMamba1StateByHand(t *testing.T) {
	lfm := []byte(`{"model_type":"lfm2","hidden_size":2048,"num_hidden_layers":4,"num_attention_heads":32,"num_key_value_heads":8,
		"vocab_size":65536,"max_position_embeddings":128000,"conv_L_cache":3,"layer_types":["conv","conv","full_attention","conv"]}`)
	s := compute(t, lfm, nil, nil)
	if got := intOf(t, s, "state.bytes_per_sequence_per_conv_layer"); got != 2*2048*2 {
		t.Errorf("conv state per layer = %d, want %d", got, 2*2048*2)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 3*2*2048*2 {
		t.Errorf("state per sequence = %d", got)
	}
	if got := intOf(t, s, "arch.layers_convolution"); got != 3 {
		t.Errorf("conv layers = %d", got)
	}
	jamba := []byte(`{"model_type":"jamba","hidden_size":4096,"num_hidden_layers":8,"num_attention_heads":32,"num_key_value_heads":8,
		"vocab_size":65536,"max_position_embeddings":262144,"attn_layer_period":8,"attn_layer_offset":4,
		"mamba_d_state":16,"mamba_d_conv":4,"mamba_expand":2}`)
	s = compute(t, jamba, nil, nil)
	want := int64(8192*16*4 + 3*8192*2) // inner × d_state × 4 B + (d_conv − 1) × inner × 2 B
	if got := intOf(t, s, "state.bytes_per_sequence_per_ssm_layer"); got != want {
		t.Errorf("Mamba-1 state per layer = %d, want %d", got, want)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 7*want {
		t.Errorf("Jamba state = %d, want %d", got, 7*want)
	}
	// A Mamba layer without its state size: the state is unknown with the
	// reason, not zero.
	s = compute(t, []byte(`{"model_type":"jamba","hidden_size":4096,"num_hidden_layers":2,"num_attention_heads":32,"vocab_size":8,
		"max_position_embeddings":8192,"attn_layer_period":2,"attn_layer_offset":1,"mamba_d_conv":4,"mamba_expand":2}`), nil, nil)
	if f := s.Get("state.bytes_per_sequence"); f == nil || f.Known() || f.Reason == "" {
		t.Errorf("state without ssm_state_size: %+v", f)
	}
}

// TestMamba2StateByHand: a pure Mamba-2 keeps no KV cache; each layer
// keeps 128 heads × 64 × state 128 at 4 B and (4 − 1) × (8192 + 2 × 8 ×
// 128) conv values at 2 B.
func TestMamba2StateByHand(t *testing.T) {
	s := compute(t, []byte(`{"model_type":"mamba2","hidden_size":4096,"num_hidden_layers":64,"vocab_size":32768,"num_heads":128,
		"head_dim":64,"state_size":128,"n_groups":8,"conv_kernel":4,"expand":2,"max_position_embeddings":262144}`), nil, nil)
	per := int64(128*64*128*4 + 3*(8192+2*8*128)*2)
	if got := intOf(t, s, "state.bytes_per_sequence_per_ssm_layer"); got != per {
		t.Errorf("state per layer = %d, want %d", got, per)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 64*per {
		t.Errorf("state per sequence = %d", got)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 0 {
		t.Errorf("KV per token = %d, want 0", got)
	}
}
