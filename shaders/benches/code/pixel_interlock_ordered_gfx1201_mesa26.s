BB0:
	s_movk_i32 s3, 0x8000                                       ; b0038000
	s_load_b256 s[0:7], s[2:3], 0x0                             ; f4006001 f8000000
	s_wait_event 0x2                                            ; bf8b0002
	v_mov_b32_e32 v4, 0x7fc00000                                ; 7e0802ff 7fc00000
	v_mov_b32_e32 v5, 0x7fc00000                                ; 7e0a02ff 7fc00000
	v_mov_b32_e32 v6, 0x7fc00000                                ; 7e0c02ff 7fc00000
	v_mov_b32_e32 v7, 0x7fc00000                                ; 7e0e02ff 7fc00000
	s_wait_kmcnt 0x0                                            ; bfc70000
	image_store v[4:7], v2, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D scope:SCOPE_DEV a16 ; d3c18041 00080004 00000002
	v_mov_b32_e32 v0, 0x7e007e00                                ; 7e0002ff 7e007e00
	s_wait_storecnt 0x0                                         ; bfc10000
	export mrt0 v0, v0, off, off done                           ; f8000803 80800000
	s_endpgm                                                    ; bfb00000
