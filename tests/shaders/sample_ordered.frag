#version 450
#extension GL_ARB_fragment_shader_interlock : require
// Sample-ordered interlock with per-sample shading (gl_SampleID), storage buffer (set 0, binding 0).
layout(sample_interlock_ordered) in;
layout(set = 0, binding = 0, std430) coherent buffer Data { uint values[]; };
layout(location = 0) out vec4 color;
void main() {
    uint i = uint(gl_FragCoord.y) * 64u + uint(gl_FragCoord.x) * 8u + uint(gl_SampleID);
    beginInvocationInterlockARB();
    values[i] += 1u;
    endInvocationInterlockARB();
    color = vec4(1.0);
}
