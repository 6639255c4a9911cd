#version 460
// One camera-facing triangle per primitive, read from the triangle buffer by gl_VertexIndex:
// no vertex input state, so the draw is just vkCmdDraw(3 * N).
#extension GL_GOOGLE_include_directive : enable
#include "common.glsl"

layout(location = 0) flat out uint vColor;

void main() {
  Triangle t = tris[gl_VertexIndex / 3];
  int corner = gl_VertexIndex % 3;
  vec2 p = corner == 0 ? t.p01.xy : (corner == 1 ? t.p01.zw : t.p2zc.xy);
  vec2 ndc = p / vec2(pc.width, pc.height) * 2.0 - 1.0;
  gl_Position = vec4(ndc, t.p2zc.z, 1.0);
  vColor = floatBitsToUint(t.p2zc.w);
}
