#version 460
// Resolve pass, one invocation per pixel: for each unit of the pixel, gather the OIT_LAYERS
// frontmost fragments, sort them by depth, blend them front to back, and put the result over
// what lies behind them (the tail: blended by the colour pass for the interlock algorithm, by
// this pass for the linked list), then average the samples.
//
// Defines: LINKED_LIST (0/1), PER_SAMPLE (0/1), MS_IMAGE (0/1: the tail image is multisampled).
#extension GL_GOOGLE_include_directive : enable
#include "common.glsl"

#if MS_IMAGE
layout(binding = 4) uniform sampler2DMS tailImage;
#else
layout(binding = 4) uniform sampler2D tailImage;
#endif

layout(location = 0) out vec4 outColor;

vec4 tailSample(ivec2 p, int s) {
#if MS_IMAGE
  return texelFetch(tailImage, p, s);
#else
  return texelFetch(tailImage, p, 0);
#endif
}

// Front-to-back "under" blending of premultiplied colours.
void blendUnder(inout vec4 acc, vec4 c) {
  acc += (1.0 - acc.a) * c;
}

struct Unit {
  uvec3 frags[OIT_LAYERS]; // color, depth, mask, sorted by depth
  int count;
  vec4 listTail;           // linked list: what did not fit, blended in list order
};

Unit gather(uint unit) {
  Unit u;
  u.count = 0;
  u.listTail = vec4(0.0);
#if LINKED_LIST
  uint node = aux[unit];
  uint guard = 0u;
  while (node != NIL && node < pc.nodeCapacity && guard < pc.nodeCapacity) {
    Fragment f = abuf[node];
    node = f.next;
    guard++;
    uvec3 item = uvec3(f.color, f.depth, f.mask);
    if (u.count < OIT_LAYERS) {
      u.frags[u.count] = item;
      u.count++;
      continue;
    }
    // Keep the OIT_LAYERS frontmost; the furthest of the rest goes to the tail.
    uint furthest = 0u;
    for (uint i = 1u; i < OIT_LAYERS; i++) {
      if (u.frags[i].y > u.frags[furthest].y) furthest = i;
    }
    if (u.frags[furthest].y > item.y) {
      uvec3 evicted = u.frags[furthest];
      u.frags[furthest] = item;
      item = evicted;
    }
    blendUnder(u.listTail, premultiplied(item.x));
  }
#else
  u.count = int(min(aux[unit], uint(OIT_LAYERS)));
  for (int i = 0; i < u.count; i++) {
    Fragment f = abuf[uint(i) * pc.unitCount + unit];
    u.frags[i] = uvec3(f.color, f.depth, f.mask);
  }
#endif
  // Insertion sort by depth.
  for (int i = 1; i < u.count; i++) {
    uvec3 key = u.frags[i];
    int j = i - 1;
    while (j >= 0 && u.frags[j].y > key.y) {
      u.frags[j + 1] = u.frags[j];
      j--;
    }
    u.frags[j + 1] = key;
  }
  return u;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int samples = int(pc.samples);
  vec4 sum = vec4(0.0);
#if PER_SAMPLE
  for (int s = 0; s < samples; s++) {
    Unit u = gather(unitIndex(p, s));
    vec4 front = vec4(0.0);
    for (int i = 0; i < u.count; i++) blendUnder(front, premultiplied(u.frags[i].x));
    vec4 behind = u.listTail;
    blendUnder(behind, tailSample(p, s));
    sum += front + (1.0 - front.a) * behind;
  }
  outColor = sum / float(samples);
#else
  // Coverage shading: one list per pixel; each sample blends the fragments that cover it, then
  // the samples' front colours are averaged and put over the averaged tail.
  Unit u = gather(unitIndex(p, 0));
  vec4 front = vec4(0.0);
  vec4 tailAvg = vec4(0.0);
  for (int s = 0; s < samples; s++) {
    vec4 fs = vec4(0.0);
    for (int i = 0; i < u.count; i++) {
      if (samples == 1 || (u.frags[i].z & (1u << uint(s))) != 0u) blendUnder(fs, premultiplied(u.frags[i].x));
    }
    front += fs;
    tailAvg += tailSample(p, s);
  }
  front /= float(samples);
  tailAvg /= float(samples);
  vec4 behind = u.listTail;
  blendUnder(behind, tailAvg);
  outColor = front + (1.0 - front.a) * behind;
#endif
}
