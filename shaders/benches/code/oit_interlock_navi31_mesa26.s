BB0:
	s_mov_b32 s0, s3                                            ; be800003
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_b128 s[4:7], s[2:3], null                            ; f4080101 f8000000
	v_lshrrev_b32_e32 v0, 16, v2                                ; 32000490
	v_cvt_u32_u16_e32 v2, v2.l                                  ; 7e04d702
	s_delay_alu instid0(VALU_DEP_2) | instskip(SKIP_1) | instid1(VALU_DEP_1) ; bf8700a2
	v_mul_lo_u32 v0, v0, s0                                     ; d72c0000 02000100
	s_wait_event 0x0                                            ; bf8b0000
	v_add_lshl_u32 v0, v0, v2, 5                                ; d6470000 02160500
	s_waitcnt lgkmcnt(0)                                        ; bf89fc07
	buffer_load_b64 v[2:3], v0, s[4:7], 0 offen glc             ; e0544000 80410200
	s_mov_b64 s[0:1], exec                                      ; be80017e
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v1, v3                                    ; 7d920701
	s_cbranch_execz BB4                                         ; bfa50006
BB1:
	v_mov_b32_e32 v4, v0                                        ; 7e080300
	v_mov_b32_e32 v0, -1                                        ; 7e0002c1
	buffer_store_b64 v[0:1], v4, s[4:7], 0 offen                ; e06c0000 80410004
	v_mov_b32_e32 v1, v3                                        ; 7e020303
	v_mov_b32_e32 v0, v4                                        ; 7e000304
BB4:
	s_and_not1_b64 exec, s[0:1], exec                           ; 91fe7e00
	v_mov_b32_e32 v2, -1                                        ; 7e0402c1
BB6:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[4:5], v0, s[4:7], 0 offen offset:8 glc    ; e0544008 80410400
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v1, v5                                    ; 7d920b01
	s_cbranch_execz BB12                                        ; bfa50005
BB7:
	v_mov_b32_e32 v3, v1                                        ; 7e060301
	buffer_store_b64 v[2:3], v0, s[4:7], 0 offen offset:8       ; e06c0008 80410200
	v_mov_b32_e32 v1, v5                                        ; 7e020305
	v_mov_b32_e32 v2, v4                                        ; 7e040304
BB12:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[4:5], v0, s[4:7], 0 offen offset:16 glc   ; e0544010 80410400
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v1, v5                                    ; 7d920b01
	s_cbranch_execz BB18                                        ; bfa50005
BB13:
	v_mov_b32_e32 v3, v1                                        ; 7e060301
	buffer_store_b64 v[2:3], v0, s[4:7], 0 offen offset:16      ; e06c0010 80410200
	v_mov_b32_e32 v1, v5                                        ; 7e020305
	v_mov_b32_e32 v2, v4                                        ; 7e040304
BB18:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	buffer_load_b64 v[4:5], v0, s[4:7], 0 offen offset:24 glc   ; e0544018 80410400
	s_waitcnt vmcnt(0)                                          ; bf8903f7
	v_cmpx_lt_u32_e32 v1, v5                                    ; 7d920b01
	s_cbranch_execz BB24                                        ; bfa50005
BB19:
	v_mov_b32_e32 v3, v1                                        ; 7e060301
	buffer_store_b64 v[2:3], v0, s[4:7], 0 offen offset:24      ; e06c0018 80410200
	v_mov_b32_e32 v1, v5                                        ; 7e020305
	v_mov_b32_e32 v2, v4                                        ; 7e040304
BB24:
	s_mov_b64 exec, s[0:1]                                      ; befe0100
	s_delay_alu instid0(VALU_DEP_2)                             ; bf870002
	v_cmpx_ne_i32_e32 -1, v1                                    ; 7d8a02c1
	s_cbranch_execz BB25                                        ; bfa50013
	s_mov_b32 s0, 0x3b808081                                    ; be8000ff 3b808081
	v_cvt_f32_ubyte1_e32 v0, v2                                 ; 7e002502
	v_cvt_f32_ubyte0_e32 v3, v2                                 ; 7e062302
	v_cvt_f32_ubyte2_e32 v4, v2                                 ; 7e082702
	v_cvt_f32_ubyte3_e32 v2, v2                                 ; 7e042902
	s_delay_alu instid0(VALU_DEP_4)                             ; bf870004
	v_fma_mixhi_f16 v1, s0, v0, neg(0) op_sel_hi:[0,0,1]        ; cc224001 82020000
	v_fma_mixlo_f16 v1, s0, v3, neg(0) op_sel_hi:[0,0,1]        ; cc214001 82020600
	v_fma_mixlo_f16 v5, s0, v4, neg(0) op_sel_hi:[0,0,1]        ; cc214005 82020800
	v_fma_mixhi_f16 v5, s0, v2, neg(0) op_sel_hi:[0,0,1]        ; cc224005 82020400
	s_waitcnt_vscnt null, 0x0                                   ; bc7c0000
	exp mrt0 v1, v5, off, off done                              ; f8000803 80800501
	s_endpgm                                                    ; bfb00000
BB25:
	s_waitcnt_vscnt null, 0x0                                   ; bc7c0000
	s_waitcnt vmcnt(0) lgkmcnt(0)                               ; bf890007
	exp mrt0 off, off, off, off done                            ; f8000800 80808080
	s_endpgm                                                    ; bfb00000
