BB0:
	s_bitcmp1_b32 s4, 31 ; bf0d9f04
	s_cbranch_scc0 BB7 ; bf840013
BB1:
	s_mov_b32 s0, src_scc ; be8003fd
	s_bfe_u32 s1, s4, 0x2001c ; 9381ff04 0002001c
	s_lshl1_add_u32 s1, s1, 1 ; 97018101
	s_setreg_b32 hwreg(HW_REG_POPS_PACKER, 0, 3), s1 ; b9811019
	s_bfe_u32 s3, s4, 0xa0010 ; 9383ff04 000a0010
	s_nand_b32 s5, s4, 0x3ff ; 8c05ff04 000003ff
	s_add_i32 s3, s3, s5 ; 81030503
	s_nop 0 ; bf800000
	(then repeated 3 times)
BB2:
	s_add_i32 s1, src_pops_exiting_wave_id, s5 ; 810105ef
	s_cmp_lt_u32 s3, s1 ; bf0a0103
	s_cbranch_scc1 BB8 ; bf850003
BB5:
	s_sleep 0xffff ; bf8effff
	s_branch BB2 ; bf82fffb
BB7:
	s_mov_b32 s0, src_scc ; be8003fd
BB8:
	s_movk_i32 s3, 0x8000 ; b0038000
	s_load_dwordx4 s[8:11], s[2:3], null ; f4080201 fa000000
	s_not_b64 s[2:3], 0 ; be820880
	s_and_saveexec_b64 s[6:7], s[2:3] ; be862402
	s_cbranch_execz BB20 ; bf880009
BB9:
	s_bcnt1_i32_b64 s1, exec ; be81107e
	s_ff1_i32_b64 s5, exec ; be85147e
	s_lshl_b64 s[12:13], 1, s5 ; 8f8c0581
	s_and_saveexec_b64 s[12:13], s[12:13] ; be8c240c
	s_cbranch_execz BB20 ; bf880004
BB10:
	v_mov_b32_e32 v0, s1 ; 7e000201
	s_waitcnt lgkmcnt(0) ; bf8cc07f
	buffer_atomic_add v0, off, s[8:11], 0 ; e0c80000 80020080
BB20:
	s_mov_b64 exec, s[6:7] ; befe0406
	s_cmp_lg_i32 s0, 0 ; bf018000
	s_cbranch_scc0 BB28 ; bf84000e
BB21:
	s_bfe_u32 s0, s4, 0x2001c ; 9380ff04 0002001c
	s_lshl1_add_u32 s0, s0, 1 ; 97008100
	s_setreg_b32 hwreg(HW_REG_POPS_PACKER, 0, 3), s0 ; b9801019
	s_bfe_u32 s1, s4, 0xa0010 ; 9381ff04 000a0010
	s_nand_b32 s4, s4, 0x3ff ; 8c04ff04 000003ff
	s_add_i32 s1, s1, s4 ; 81010401
BB22:
	s_add_i32 s0, src_pops_exiting_wave_id, s4 ; 810004ef
	s_cmp_lt_u32 s1, s0 ; bf0a0001
	s_cbranch_scc1 BB28 ; bf850002
BB25:
	s_sleep 0xffff ; bf8effff
	s_branch BB22 ; bf82fffb
BB28:
	s_and_b64 exec, s[2:3], exec ; 87fe7e02
	s_cbranch_execz BB40 ; bf880009
BB29:
	s_bcnt1_i32_b64 s0, exec ; be80107e
	s_ff1_i32_b64 s1, exec ; be81147e
	s_lshl_b64 s[2:3], 1, s1 ; 8f820181
	s_and_saveexec_b64 s[2:3], s[2:3] ; be822402
	s_cbranch_execz BB40 ; bf880004
BB30:
	v_mov_b32_e32 v0, s0 ; 7e000200
	s_waitcnt lgkmcnt(0) ; bf8cc07f
	buffer_atomic_add v0, off, s[8:11], 0 ; e0c80000 80020080
BB40:
	s_mov_b64 exec, s[6:7] ; befe0406
	s_waitcnt_vscnt null, 0x0 ; bbfd0000
	s_sendmsg sendmsg(MSG_ORDERED_PS_DONE) ; bf900007
	exp null off, off, off, off done vm ; f8001890 80808080
	s_endpgm ; bf810000
