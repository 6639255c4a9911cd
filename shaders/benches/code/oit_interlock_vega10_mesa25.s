BB0:
	v_lshrrev_b32_e32 v0, 16, v3                                ; 20000690
	s_bitcmp1_b32 s5, 31                                        ; bf0d9f05
	v_mul_lo_u32 v0, v0, s3                                     ; d2850000 00000700
	v_add_u32_sdwa v0, v0, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0 ; 680006f9 04060600
	s_cbranch_scc0 BB8                                          ; bf840012
BB1:
	s_bfe_u32 s0, s5, 0x1001c                                   ; 9280ff05 0001001c
	s_add_i32 s0, s0, 1                                         ; 81008100
	s_setreg_b32 hwreg(HW_REG_MODE, 24, 2), s0                  ; b9000e01
	s_bfe_u32 s1, s5, 0xa0010                                   ; 9281ff05 000a0010
	s_and_b32 s3, s5, 0x3ff                                     ; 8603ff05 000003ff
	s_cmp_gt_u32 s1, s3                                         ; bf080301
	s_add_i32 s1, s1, src_scc                                   ; 8101fd01
	s_nand_b32 s5, s5, 0x3ff                                    ; 8b05ff05 000003ff
	s_add_i32 s1, s1, s5                                        ; 81010501
BB2:
	s_add_i32 s0, src_pops_exiting_wave_id, s5                  ; 810005ef
	s_cmp_lt_u32 s1, s0                                         ; bf0a0001
	s_cbranch_scc1 BB8                                          ; bf850002
BB5:
	s_sleep 3                                                   ; bf8e0003
	s_branch BB2                                                ; bf82fffb
BB8:
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_dwordx4 s[0:3], s[2:3], 0x0                          ; c00a0001 00000000
	v_lshlrev_b32_e32 v0, 5, v0                                 ; 24000085
	s_waitcnt lgkmcnt(0)                                        ; bf8cc07f
	buffer_load_dwordx2 v[4:5], v0, s[0:3], 0 offen glc         ; e0545000 80000400
	s_mov_b64 s[4:5], exec                                      ; be84017e
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	v_cmpx_lt_u32_e32 vcc, v2, v5                               ; 7db20b02
	s_cbranch_execz BB12                                        ; bf880004
BB9:
	v_mov_b32_e32 v1, 0                                         ; 7e020280
	buffer_store_dwordx2 v[1:2], v0, s[0:3], 0 offen glc        ; e0745000 80000100
	v_mov_b32_e32 v2, v5                                        ; 7e040305
BB12:
	s_andn2_b64 exec, s[4:5], exec                              ; 89fe7e04
	v_mov_b32_e32 v4, 0                                         ; 7e080280
BB14:
	s_mov_b64 exec, s[4:5]                                      ; befe0104
	buffer_load_dwordx2 v[6:7], v0, s[0:3], 0 offen offset:8 glc ; e0545008 80000600
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	v_cmpx_lt_u32_e32 vcc, v2, v7                               ; 7db20f02
	s_cbranch_execz BB20                                        ; bf880005
BB15:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_dwordx2 v[4:5], v0, s[0:3], 0 offen offset:8 glc ; e0745008 80000400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB20:
	s_mov_b64 exec, s[4:5]                                      ; befe0104
	buffer_load_dwordx2 v[6:7], v0, s[0:3], 0 offen offset:16 glc ; e0545010 80000600
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	v_cmpx_lt_u32_e32 vcc, v2, v7                               ; 7db20f02
	s_cbranch_execz BB26                                        ; bf880005
BB21:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_dwordx2 v[4:5], v0, s[0:3], 0 offen offset:16 glc ; e0745010 80000400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB26:
	s_mov_b64 exec, s[4:5]                                      ; befe0104
	buffer_load_dwordx2 v[6:7], v0, s[0:3], 0 offen offset:24 glc ; e0545018 80000600
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	v_cmpx_lt_u32_e32 vcc, v2, v7                               ; 7db20f02
	s_cbranch_execz BB32                                        ; bf880005
BB27:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_dwordx2 v[4:5], v0, s[0:3], 0 offen offset:24 glc ; e0745018 80000400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB32:
	s_mov_b64 exec, s[4:5]                                      ; befe0104
	s_waitcnt vmcnt(0)                                          ; bf8c3f70
	s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007
	v_cmpx_ne_i32_e32 vcc, -1, v2                               ; 7daa04c1
	s_cbranch_execz BB33                                        ; bf880011
	s_mov_b32 s0, 0x3b808081                                    ; be8000ff 3b808081
	v_cvt_f32_ubyte1_e32 v0, v4                                 ; 7e002504
	v_cvt_f32_ubyte0_e32 v1, v4                                 ; 7e022304
	v_cvt_f32_ubyte2_e32 v2, v4                                 ; 7e042704
	v_cvt_f32_ubyte3_e32 v4, v4                                 ; 7e082904
	v_mul_f32_e32 v0, s0, v0                                    ; 0a000000
	v_mul_f32_e32 v1, s0, v1                                    ; 0a020200
	v_mul_f32_e32 v2, s0, v2                                    ; 0a040400
	v_mul_f32_e32 v4, s0, v4                                    ; 0a080800
	v_cvt_pkrtz_f16_f32 v1, v1, v0                              ; d2960001 00020101
	v_cvt_pkrtz_f16_f32 v2, v2, v4                              ; d2960002 00020902
	exp mrt0 v1, v1, v2, v2 done compr vm                       ; c4001c0f 80800201
	s_endpgm                                                    ; bf810000
BB33:
	exp null off, off, off, off done vm                         ; c4001890 80808080
	s_endpgm                                                    ; bf810000
