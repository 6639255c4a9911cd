// Shared by every pops-oit shader: bindings, push constants and the A-buffer layout.
//
// A "unit" is what owns one list of fragments: a pixel (pixel-rate shading, with a coverage mask
// per fragment when MSAA) or a sample (sample-rate shading). The A-buffer is layer-major:
// entry (layer, unit) lives at layer * unitCount + unit, so neighbouring invocations touch
// neighbouring memory, as in nvpro's sample.

#define OIT_LAYERS 8

struct Triangle {
  vec4 p01;   // xy = vertex 0, zw = vertex 1, in pixels
  vec4 p2zc;  // xy = vertex 2, z = depth, w = RGBA8 colour (uint bits, not premultiplied)
};

struct Fragment {
  uint color;  // packUnorm4x8, not premultiplied
  uint depth;  // floatBitsToUint(gl_FragCoord.z); depths are positive so uint order = float order
  uint mask;   // covered samples (coverage units only)
  uint next;   // linked list: index of the next node, or NIL
};

#define NIL 0xFFFFFFFFu

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint samples;      // rasterization samples
  uint unitCount;    // width * height * (PER_SAMPLE ? samples : 1)
  uint nodeCapacity; // linked list node pool size
  uint pad0, pad1, pad2;
} pc;

layout(std430, binding = 0) readonly buffer Triangles { Triangle tris[]; };
layout(std430, binding = 1) coherent buffer ABuffer { Fragment abuf[]; };
// Interlock: fragments seen per unit. Linked list: head node per unit.
layout(std430, binding = 2) coherent buffer Aux { uint aux[]; };
layout(std430, binding = 3) coherent buffer Counter { uint nodeCounter; };

uint unitIndex(ivec2 p, int sampleId) {
  return (uint(sampleId) * pc.height + uint(p.y)) * pc.width + uint(p.x);
}

vec4 premultiplied(uint packedColor) {
  vec4 c = unpackUnorm4x8(packedColor);
  return vec4(c.rgb * c.a, c.a);
}
