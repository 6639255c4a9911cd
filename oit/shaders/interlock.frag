#version 460
// Colour pass of the interlock algorithm (after nvpro-samples vk_order_independent_transparency,
// oitInterlock): inside the critical section, insert this fragment among the OIT_LAYERS frontmost
// of its unit; a fragment that does not fit (this one, or the one it evicts) is tail-blended by
// the fixed-function blender through outColor.
//
// Defines: ORDERED (0/1), SAMPLE_INTERLOCK (0/1), PER_SAMPLE (0/1: one unit per sample, sample
// shading forced by gl_SampleID).
#extension GL_GOOGLE_include_directive : enable
#extension GL_ARB_fragment_shader_interlock : require
#include "common.glsl"

#if SAMPLE_INTERLOCK && ORDERED
layout(sample_interlock_ordered) in;
#elif SAMPLE_INTERLOCK
layout(sample_interlock_unordered) in;
#elif ORDERED
layout(pixel_interlock_ordered) in;
#else
layout(pixel_interlock_unordered) in;
#endif

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
  uint depth = floatBitsToUint(gl_FragCoord.z);
  uint tailColor = vColor;
  bool tail = true;

  beginInvocationInterlockARB();
  uint count = aux[unit];
  aux[unit] = count + 1u;
  if (count < OIT_LAYERS) {
    abuf[count * pc.unitCount + unit] = Fragment(vColor, depth, mask, 0u);
    tail = false;
  } else {
    uint furthest = 0u;
    uint maxDepth = 0u;
    for (uint i = 0u; i < OIT_LAYERS; i++) {
      uint d = abuf[i * pc.unitCount + unit].depth;
      if (d > maxDepth) {
        maxDepth = d;
        furthest = i;
      }
    }
    if (maxDepth > depth) {
      uint slot = furthest * pc.unitCount + unit;
      tailColor = abuf[slot].color;
      abuf[slot] = Fragment(vColor, depth, mask, 0u);
    }
  }
  endInvocationInterlockARB();

  outColor = tail ? premultiplied(tailColor) : vec4(0.0);
}
