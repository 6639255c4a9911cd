#version 460
// The race test's primitives: each covers the whole viewport (one triangle past its corners), in
// API order; the fragment shader gets the primitive's index as a flat input.
layout(location = 0) flat out uint vPrim;

void main() {
  int corner = gl_VertexIndex % 3;
  vec2 p = corner == 0 ? vec2(-1.0, -1.0) : (corner == 1 ? vec2(3.0, -1.0) : vec2(-1.0, 3.0));
  gl_Position = vec4(p, 0.5, 1.0);
  vPrim = uint(gl_VertexIndex / 3);
}
