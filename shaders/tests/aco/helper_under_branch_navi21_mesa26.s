BB0:
	s_mov_b64 s[0:1], exec ; be80047e
	v_cmpx_lt_f32_e32 0.5, v1 ; 7c2202f0
	s_cbranch_execz BB20 ; bf880020
BB1:
	s_bitcmp1_b32 s4, 31 ; bf0d9f04
	s_cbranch_scc0 BB8 ; bf84000f
BB2:
	s_bfe_u32 s3, s4, 0x2001c ; 9383ff04 0002001c
	s_lshl1_add_u32 s3, s3, 1 ; 97038103
	s_setreg_b32 hwreg(HW_REG_POPS_PACKER, 0, 3), s3 ; b9831019
	s_bfe_u32 s5, s4, 0xa0010 ; 9385ff04 000a0010
	s_nand_b32 s4, s4, 0x3ff ; 8c04ff04 000003ff
	s_add_i32 s5, s5, s4 ; 81050405
	s_branch BB3 ; bf820002
	s_nop 0 ; bf800000
BB5:
	s_sleep 0xffff ; bf8effff
BB3:
	s_add_i32 s3, src_pops_exiting_wave_id, s4 ; 810304ef
	s_cmp_lt_u32 s5, s3 ; bf0a0305
	s_cbranch_scc0 BB5 ; bf84fffc
BB8:
	s_movk_i32 s3, 0x8000 ; b0038000
	s_load_dwordx4 s[4:7], s[2:3], null ; f4080101 fa000000
	s_not_b64 s[2:3], 0 ; be820880
	s_and_saveexec_b64 s[2:3], s[2:3] ; be822402
	s_cbranch_execz BB20 ; bf880009
BB9:
	s_bcnt1_i32_b64 s8, exec ; be88107e
	s_ff1_i32_b64 s9, exec ; be89147e
	s_lshl_b64 s[10:11], 1, s9 ; 8f8a0981
	s_and_saveexec_b64 s[10:11], s[10:11] ; be8a240a
	s_cbranch_execz BB20 ; bf880004
BB10:
	v_mov_b32_e32 v0, s8 ; 7e000208
	s_waitcnt lgkmcnt(0) ; bf8cc07f
	buffer_atomic_add v0, off, s[4:7], 0 ; e0c80000 80010080
BB20:
BB25:
	s_waitcnt_vscnt null, 0x0 ; bbfd0000
	s_sendmsg sendmsg(MSG_ORDERED_PS_DONE) ; bf900007
	s_mov_b64 exec, s[0:1] ; befe0400
	exp null off, off, off, off done vm ; f8001890 80808080
	s_endpgm ; bf810000
