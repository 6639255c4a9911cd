// The pixel_interlock_ordered interlock layout around a read-modify-write of a storage image (programmable blending).
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=true accesses_memory=true color=true early=false sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_ordered) in;

layout(binding = 0, rgba8) coherent uniform image2D blended;

layout(location = 0) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 src = inColor;
    beginInvocationInterlockARB();
    vec4 dst = imageLoad(blended, pixel);
    vec4 result = src * src.a + dst * (1.0 - src.a);
    imageStore(blended, pixel, result);
    endInvocationInterlockARB();
    outColor = result;
}
