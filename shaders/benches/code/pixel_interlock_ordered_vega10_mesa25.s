BB0:
	s_bitcmp1_b32 s4, 31                                        ; bf0d9f04
	s_cbranch_scc0 BB8                                          ; bf840013
BB1:
	s_bfe_u32 s0, s4, 0x1001c                                   ; 9280ff04 0001001c
	s_add_i32 s0, s0, 1                                         ; 81008100
	s_setreg_b32 hwreg(HW_REG_MODE, 24, 2), s0                  ; b9000e01
	s_bfe_u32 s1, s4, 0xa0010                                   ; 9281ff04 000a0010
	s_and_b32 s3, s4, 0x3ff                                     ; 8603ff04 000003ff
	s_cmp_gt_u32 s1, s3                                         ; bf080301
	s_add_i32 s1, s1, src_scc                                   ; 8101fd01
	s_nand_b32 s4, s4, 0x3ff                                    ; 8b04ff04 000003ff
	s_add_i32 s1, s1, s4                                        ; 81010401
	s_nop 0                                                     ; bf800000
BB2:
	s_add_i32 s0, src_pops_exiting_wave_id, s4                  ; 810004ef
	s_cmp_lt_u32 s1, s0                                         ; bf0a0001
	s_cbranch_scc1 BB8                                          ; bf850002
BB5:
	s_sleep 3                                                   ; bf8e0003
	s_branch BB2                                                ; bf82fffb
BB8:
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_dwordx8 s[0:7], s[2:3], 0x0                          ; c00e0001 00000000
	v_mov_b32_e32 v4, 0x7fc00000                                ; 7e0802ff 7fc00000
	v_mov_b32_e32 v5, 0x7fc00000                                ; 7e0a02ff 7fc00000
	v_mov_b32_e32 v6, 0x7fc00000                                ; 7e0c02ff 7fc00000
	v_mov_b32_e32 v7, 0x7fc00000                                ; 7e0e02ff 7fc00000
	s_waitcnt lgkmcnt(0)                                        ; bf8cc07f
	image_store v[4:7], v2, s[0:7] dmask:0xf unorm glc a16      ; f020bf00 00000402
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007
	v_mov_b32_e32 v0, 0x7e007e00                                ; 7e0002ff 7e007e00
	exp mrt0 v0, v0, v0, v0 done compr vm                       ; c4001c0f 80800000
	s_endpgm                                                    ; bf810000
