#version 460
// Colour pass of the linked-list algorithm, for devices without fragment shader interlock:
// every fragment takes a node from the pool with an atomic counter and pushes itself on its
// unit's list with an atomic exchange. Nothing is written to the colour attachment.
//
// Defines: PER_SAMPLE (0/1).
#extension GL_GOOGLE_include_directive : enable
#include "common.glsl"

layout(location = 0) flat in uint vColor;
layout(location = 0) out vec4 outColor;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
#if PER_SAMPLE
  uint unit = unitIndex(p, gl_SampleID);
  uint mask = 1u;
#else
  uint unit = unitIndex(p, 0);
  uint mask = uint(gl_SampleMaskIn[0]);
#endif
  uint node = atomicAdd(nodeCounter, 1u);
  if (node < pc.nodeCapacity) {
    uint next = atomicExchange(aux[unit], node);
    abuf[node] = Fragment(vColor, floatBitsToUint(gl_FragCoord.z), mask, next);
  }
  outColor = vec4(0.0);
}
