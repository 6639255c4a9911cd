#version 450
#extension GL_ARB_fragment_shader_interlock : require
// Pixel-unordered interlock, no colour output.
layout(pixel_interlock_unordered) in;
layout(set = 0, binding = 1, r32ui) uniform coherent uimage2D counts;
void main() {
    beginInvocationInterlockARB();
    imageAtomicAdd(counts, ivec2(gl_FragCoord.xy), 1u);
    endInvocationInterlockARB();
}
