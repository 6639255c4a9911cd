BB0:
	s_mov_b32 s0, s3                                            ; be800003
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_b128 s[4:7], s[2:3], null                            ; f4080101 f8000000
	v_lshrrev_b32_e32 v0, 16, v3                                ; 32000690
	v_cvt_u32_u16_e32 v3, v3                                    ; 7e06d703
	s_delay_alu instid0(VALU_DEP_2) | instskip(SKIP_1) | instid1(VALU_DEP_1) ; bf8700a2
	v_mul_lo_u32 v0, v0, s0                                     ; d72c0000 00000100
	s_wait_event 0x0                                            ; bf8b0000
	v_add_lshl_u32 v0, v0, v3, 5                                ; d6470000 02160700
	s_waitcnt lgkmcnt(0)                                        ; bf89fc07
	buffer_load_b64 v[4:5], v0, s[4:7], 0 offen glc             ; e0544000 80410400
	s_mov_b64 s[0:1], exec                                      ; be80017e
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v2, v5                                    ; 7d920b02
	s_cbranch_execz BB4                                         ; bfa50004
BB1:
	v_mov_b32_e32 v1, 0                                         ; 7e020280
	buffer_store_b64 v[1:2], v0, s[4:7], 0 offen                ; e06c0000 80410100
	v_mov_b32_e32 v2, v5                                        ; 7e040305
BB4:
	s_and_not1_b64 exec, s[0:1], exec                           ; 91fe7e00
	v_mov_b32_e32 v4, 0                                         ; 7e080280
BB6:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[6:7], v0, s[4:7], 0 offen offset:8 glc    ; e0544008 80410600
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v2, v7                                    ; 7d920f02
	s_cbranch_execz BB12                                        ; bfa50005
BB7:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_b64 v[4:5], v0, s[4:7], 0 offen offset:8       ; e06c0008 80410400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB12:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[6:7], v0, s[4:7], 0 offen offset:16 glc   ; e0544010 80410600
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v2, v7                                    ; 7d920f02
	s_cbranch_execz BB18                                        ; bfa50005
BB13:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_b64 v[4:5], v0, s[4:7], 0 offen offset:16      ; e06c0010 80410400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB18:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[6:7], v0, s[4:7], 0 offen offset:24 glc   ; e0544018 80410600
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v2, v7                                    ; 7d920f02
	s_cbranch_execz BB24                                        ; bfa50005
BB19:
	v_mov_b32_e32 v5, v2                                        ; 7e0a0302
	buffer_store_b64 v[4:5], v0, s[4:7], 0 offen offset:24      ; e06c0018 80410400
	v_mov_b32_e32 v2, v7                                        ; 7e040307
	v_mov_b32_e32 v4, v6                                        ; 7e080306
BB24:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	s_delay_alu instid0(VALU_DEP_2)                             ; bf870002
	v_cmpx_ne_i32_e32 -1, v2                                    ; 7d8a04c1
	s_cbranch_execz BB25                                        ; bfa50015
	s_mov_b32 s0, 0x3b808081                                    ; be8000ff 3b808081
	v_cvt_f32_ubyte1_e32 v0, v4                                 ; 7e002504
	v_cvt_f32_ubyte0_e32 v2, v4                                 ; 7e042304
	v_cvt_f32_ubyte3_e32 v3, v4                                 ; 7e062904
	v_cvt_f32_ubyte2_e32 v4, v4                                 ; 7e082704
	s_delay_alu instid0(VALU_DEP_4)                             ; bf870004
	v_fma_mixhi_f16 v1, s0, v0, neg(0) op_sel_hi:[0,0,1]        ; cc224001 82020000
	v_fma_mixlo_f16 v1, s0, v2, neg(0) op_sel_hi:[0,0,1]        ; cc214001 82020400
	v_fma_mixhi_f16 v5, s0, v3, neg(0) op_sel_hi:[0,0,1]        ; cc224005 82020600
	v_fma_mixlo_f16 v5, s0, v4, neg(0) op_sel_hi:[0,0,1]        ; cc214005 82020800
	s_waitcnt_vscnt null, 0x0                                   ; bc7c0000
	exp mrt0 v1, v5, off, off done                              ; f8000803 80800501
	s_nop 0                                                     ; bf800000
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                        ; bfb60003
	s_endpgm                                                    ; bfb00000
BB25:
	s_waitcnt_vscnt null, 0x0                                   ; bc7c0000
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	exp mrt0 off, off, off, off done                            ; f8000800 80808080
	s_nop 0                                                     ; bf800000
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                        ; bfb60003
	s_endpgm                                                    ; bfb00000
