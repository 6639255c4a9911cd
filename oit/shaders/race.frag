#version 460
// The race test: every fragment reads its unit's counter and the last primitive that wrote it,
// and writes counter + its covered samples and its own primitive, inside the interlock's critical section, the
// store last (as late in the section as the code allows: the store a missing wait leaves in
// flight when the wave ends the section). Outside the section it counts, atomically, every time
// it saw a later primitive than its own (an order violation in an ordered mode). A primitive may
// reach a pixel in several invocations, each covering some of its samples (a clipped primitive
// split in two, say): they are not ordered among themselves, so the counter adds samples, the
// expected count is primitives × samples per unit, and seeing one's own primitive is no violation. Then it writes a
// colour, so the section is followed by an export (a PS epilog where the driver compiles one).
//
// Defines: INTERLOCK (0: the control, the same read-modify-write unprotected), ORDERED,
// SAMPLE_INTERLOCK, PER_SAMPLE (one unit per sample: gl_SampleID forces sample shading), IMAGE
// (the units in a storage image instead of a storage buffer).
#if INTERLOCK
#extension GL_ARB_fragment_shader_interlock : require
#if SAMPLE_INTERLOCK && ORDERED
layout(sample_interlock_ordered) in;
#elif SAMPLE_INTERLOCK
layout(sample_interlock_unordered) in;
#elif ORDERED
layout(pixel_interlock_ordered) in;
#else
layout(pixel_interlock_unordered) in;
#endif
#endif

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint samples;
  uint unitCount;
  uint pad0, pad1, pad2, pad3;
} pc;

// x: samples counted, y: the last primitive + 1 (0: none yet).
layout(std430, binding = 0) coherent buffer Cells { uvec2 cell[]; };
// [0]: order violations.
layout(std430, binding = 1) buffer Stats { uint violations; };
// The same units as an image: x = pixel x * units per pixel + sample.
layout(binding = 2, rg32ui) coherent uniform uimage2D cellImage;

layout(location = 0) flat in uint vPrim;
layout(location = 0) out vec4 outColor;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
#if PER_SAMPLE
  int s = gl_SampleID;
  int per = int(pc.samples);
  uint covered = 1u;
#else
  int s = 0;
  int per = 1;
  uint covered = uint(bitCount(gl_SampleMaskIn[0]));
#endif
#if INTERLOCK
  beginInvocationInterlockARB();
#endif
#if IMAGE
  ivec2 at = ivec2(p.x * per + s, p.y);
  uvec2 c = imageLoad(cellImage, at).xy;
  imageStore(cellImage, at, uvec4(c.x + covered, vPrim + 1u, 0u, 0u));
#else
  uint unit = (uint(s) * pc.height + uint(p.y)) * pc.width + uint(p.x);
  uvec2 c = cell[unit];
  cell[unit] = uvec2(c.x + covered, vPrim + 1u);
#endif
#if INTERLOCK
  endInvocationInterlockARB();
#endif
  if (c.y > vPrim + 1u) {
    atomicAdd(violations, 1u);
  }
  outColor = vec4(0.0, 0.0, 0.0, 1.0 / 255.0);
}
