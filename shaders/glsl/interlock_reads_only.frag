// The critical section only reads memory (a storage buffer and a storage image) and the result
// leaves through the colour output: the shader accesses memory but never writes it.
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=false accesses_memory=true color=true early=false sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_ordered) in;

layout(std430, binding = 0) readonly buffer Weights {
    vec4 weights[];
};
layout(binding = 1, rgba8) readonly uniform image2D history;

layout(location = 0) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    beginInvocationInterlockARB();
    vec4 h = imageLoad(history, pixel);
    vec4 w = weights[pixel.x & 63];
    endInvocationInterlockARB();
    outColor = mix(inColor, h, w);
}
