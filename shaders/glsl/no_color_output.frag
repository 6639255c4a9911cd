// No colour output: the shader's only effects are an image atomic inside the critical section and
// gl_FragDepth, a built-in output that is not colour.
// expect: model=Fragment interlock=pixel-unordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=true accesses_memory=true color=false early=false sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_unordered) in;

layout(binding = 0, r32ui) coherent uniform uimage2D overdraw;

layout(location = 0) in float depthBias;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    beginInvocationInterlockARB();
    imageAtomicAdd(overdraw, pixel, 1u);
    endInvocationInterlockARB();
    gl_FragDepth = gl_FragCoord.z + depthBias;
}
