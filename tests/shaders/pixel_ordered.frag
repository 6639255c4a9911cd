#version 450
#extension GL_ARB_fragment_shader_interlock : require
// Pixel-ordered interlock around a read-modify-write of a storage image (set 0, binding 1).
layout(pixel_interlock_ordered) in;
layout(set = 0, binding = 1, r32ui) uniform coherent uimage2D counts;
layout(location = 0) out vec4 color;
void main() {
    beginInvocationInterlockARB();
    uint n = imageLoad(counts, ivec2(gl_FragCoord.xy)).x;
    imageStore(counts, ivec2(gl_FragCoord.xy), uvec4(n + 1u));
    endInvocationInterlockARB();
    color = vec4(float(n) / 8.0, 0.5, 0.0, 1.0);
}
