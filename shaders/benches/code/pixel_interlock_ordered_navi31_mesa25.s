BB0:
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_b256 s[0:7], s[2:3], null                            ; f40c0001 f8000000
	s_wait_event 0x0                                            ; bf8b0000
	v_mov_b32_e32 v4, 0x7fc00000                                ; 7e0802ff 7fc00000
	v_mov_b32_e32 v5, 0x7fc00000                                ; 7e0a02ff 7fc00000
	v_mov_b32_e32 v6, 0x7fc00000                                ; 7e0c02ff 7fc00000
	v_mov_b32_e32 v7, 0x7fc00000                                ; 7e0e02ff 7fc00000
	s_waitcnt lgkmcnt(0)                                        ; bf89fc07
	image_store v[4:7], v2, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16 ; f0190f84 00000402
	s_waitcnt_vscnt null, 0x0                                   ; bc7c0000
	v_mov_b32_e32 v0, 0x7e007e00                                ; 7e0002ff 7e007e00
	exp mrt0 v0, v0, off, off done                              ; f8000803 80800000
	s_nop 0                                                     ; bf800000
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                        ; bfb60003
	s_endpgm                                                    ; bfb00000
